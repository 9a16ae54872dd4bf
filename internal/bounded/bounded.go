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
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
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

// Size is a number of bytes, written with the largest binary unit that
// divides it (2GiB, 256MiB, 1000B).
type Size int64

// units are the suffixes ParseSize takes (case aside): binary units as
// Kubernetes writes them (Mi) or with a B (MiB), decimal ones as k8s (M)
// or with a B (MB).
var units = []struct {
	suffix string
	bytes  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"ki", 1 << 10}, {"mi", 1 << 20}, {"gi", 1 << 30}, {"ti", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12},
	{"b", 1},
}

// errSize is what a size that does not parse is told.
var errSize = errors.New("want a whole number of bytes with an optional unit: KiB, MiB, GiB (or Ki, Mi, Gi), KB, MB, GB")

// ParseSize reads a size: a whole number with an optional unit (256MiB,
// 2Gi, 512M, 1048576).
func ParseSize(s string) (Size, error) {
	n, err := parseSize(s)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %w", s, err)
	}
	return n, nil
}

// parseSize is ParseSize, its error saying only what is wrong.
func parseSize(s string) (Size, error) {
	num, scale := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			num, scale = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	switch {
	case err != nil || n < 0:
		return 0, errSize
	case n > (1<<63-1)/scale:
		return 0, errors.New("too large")
	}
	return Size(n * scale), nil
}

func (s Size) String() string {
	if s == 0 {
		return "0"
	}
	for _, u := range []struct {
		name  string
		bytes Size
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s%u.bytes == 0 {
			return strconv.FormatInt(int64(s/u.bytes), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// Set implements flag.Value.
func (s *Size) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = n
	return nil
}
