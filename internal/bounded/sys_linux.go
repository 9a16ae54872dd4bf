package bounded

import "syscall"

// sysProcAttr puts a command in a process group of its own, killed with
// kptkit (Pdeathsig) should kptkit die first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
