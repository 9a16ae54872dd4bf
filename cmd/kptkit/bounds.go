package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/builtinfn"
)

// The bounds of a step unless flags say otherwise.
const (
	defaultTimeout = 2 * time.Minute
	defaultMemory  = bounded.Size(2 << 30)
)

// limitFlags are the flags that bound each run of code kptkit is handed:
// its wall time and its memory.
type limitFlags struct {
	timeName, memoryName string
	timeout              time.Duration
	memory               bounded.Size
}

// addStepLimits adds --step-timeout and --step-memory, which bound every
// step of a pipeline.
func addStepLimits(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{timeName: "step-timeout", memoryName: "step-memory", timeout: defaultTimeout, memory: defaultMemory}
	fs.DurationVar(&l.timeout, l.timeName, l.timeout, "stop a step that runs longer than `DURATION`: it fails, its processes killed (0 for no limit)")
	fs.Var(&l.memory, l.memoryName, "the memory a step's process (starlark, an exec: or --exec-for binary) may map for its data, `SIZE` such as 512MiB or 4GiB (0 for no limit)")
	return l
}

// addEvalLimits adds --timeout and --memory, which bound the evaluation
// of a program (Jsonnet).
func addEvalLimits(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{timeName: "timeout", memoryName: "memory", timeout: defaultTimeout, memory: defaultMemory}
	fs.DurationVar(&l.timeout, l.timeName, l.timeout, "stop evaluating a Jsonnet file after `DURATION` (0 for no limit)")
	fs.Var(&l.memory, l.memoryName, "the memory the evaluation of a Jsonnet file may map for its data, `SIZE` such as 512MiB or 4GiB (0 for no limit)")
	return l
}

// limits are the flags' Limits, or an error for a negative duration.
func (l *limitFlags) limits() (bounded.Limits, error) {
	if l.timeout < 0 {
		return bounded.Limits{}, fmt.Errorf("--%s is %s: it takes a positive duration, or 0 for no limit", l.timeName, l.timeout)
	}
	return bounded.Limits{Time: l.timeout, Memory: l.memory, TimeFlag: "--" + l.timeName, MemoryFlag: "--" + l.memoryName}, nil
}

// watch is render.Options.Watch for these limits: a step of kptkit's own
// functions is waited for up to the time limit, then abandoned.
func watch(l bounded.Limits) func(step func()) error {
	if l.Time <= 0 {
		return nil
	}
	return func(step func()) error { return bounded.Wait(l, step) }
}

// self is kptkit's own binary, which its children run; "" when it cannot
// be found (a run that needs a child then says so).
func self() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// childWorks are the works a child of kptkit runs (bounded.Main).
func childWorks() map[string]bounded.Work {
	works := builtinfn.Works()
	works[jsonnetWork] = evaluateJsonnet
	return works
}
