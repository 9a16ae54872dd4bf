package main

import (
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

func TestTmpProfile(t *testing.T) {
	dir := os.Getenv("PROFDIR")
	if dir == "" {
		t.Skip()
	}
	isolate = func() []string { return os.Environ() }
	runtime.MemProfileRate = 64 * 1024
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	if err := renderPackage(dir, renderFlags{output: "stdout"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	pprof.StopCPUProfile()
	m, _ := os.Create("/tmp/mem.prof")
	pprof.Lookup("allocs").WriteTo(m, 0)
}
