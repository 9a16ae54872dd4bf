package main

import (
	"io"
	"os"
	"runtime/pprof"
	"testing"
)

func TestTmpProfile(t *testing.T) {
	dir := os.Getenv("PROFDIR")
	if dir == "" {
		t.Skip()
	}
	isolate = func() []string { return os.Environ() }
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	for i := 0; i < 1; i++ {
		if err := renderPackage(dir, renderFlags{output: "stdout"}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	pprof.StopCPUProfile()
}
