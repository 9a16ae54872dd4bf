// Package bounded runs work under a time limit and a memory ceiling: a
// command (a function's binary, a container engine's client) or a piece of
// kptkit's own work in a child process of kptkit goes in with its Limits,
// its output comes out, or an *Exceeded error naming the bound it hit. A
// command runs in a process group of its own, killed when its time is up
// and when it ends; its memory is bounded by an rlimit kptkit sets before
// it becomes the command (kptkit re-executes itself as a trampoline). Work
// in this process, which cannot be stopped, is waited for up to the time
// limit and then abandoned (Wait).
package bounded

import (
	"fmt"
	"time"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// Limits bound one step: its wall time and its memory.
type Limits struct {
	// Time is the wall time a step may take; 0 for no limit.
	Time time.Duration
	// Memory is the memory a process may map for its data (RLIMIT_DATA:
	// heap, stacks of threads, other writable memory); 0 for no limit.
	Memory Size
	// TimeFlag and MemoryFlag name the settings behind Time and Memory,
	// for messages ("--step-timeout").
	TimeFlag, MemoryFlag string
}

// Exceeded is a run stopped at one of its Limits.
type Exceeded struct {
	Memory bool // the memory ceiling; else the time limit
	Limits Limits
}

func (e *Exceeded) Error() string {
	if e.Memory {
		return fmt.Sprintf("exceeded the memory limit of %s%s", e.Limits.Memory, note(e.Limits.MemoryFlag))
	}
	return fmt.Sprintf("timed out after %s%s", e.Limits.Time, note(e.Limits.TimeFlag))
}

func note(flag string) string {
	if flag == "" {
		return ""
	}
	return " (" + flag + ")"
}

// Wait runs work on a goroutine of its own and waits for it at most
// l.Time (for ever when 0). Past the limit it returns an *Exceeded and
// leaves the work running — a goroutine cannot be stopped — so work must
// write nothing its caller reads after Wait failed. A panic of the work is
// raised again in the caller.
func Wait(l Limits, work func()) error {
	if l.Time <= 0 {
		work()
		return nil
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		work()
	}()
	t := time.NewTimer(l.Time)
	defer t.Stop()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
		return nil
	case <-t.C:
		return &Exceeded{Limits: l}
	}
}

// Size is a number of bytes (krmfn.Size, the one reading and writing of
// sizes every flag of kptkit uses: 2GiB, 256Mi, 512M, 1048576).
type Size = krmfn.Size

// ParseSize reads a size, saying which when it does not parse.
func ParseSize(s string) (Size, error) {
	n, err := krmfn.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %w", s, err)
	}
	return n, nil
}
