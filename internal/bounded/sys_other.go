//go:build unix && !linux

package bounded

import "syscall"

// sysProcAttr puts a command in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
