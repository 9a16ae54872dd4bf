package krmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// Seed adds every golden case input under dir to the fuzz corpus.
func Seed(f *testing.F, dir string) {
	f.Helper()
	cases, _ := filepath.Glob(filepath.Join(dir, "*", Input))
	for _, c := range cases {
		b, err := os.ReadFile(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// Fuzz runs f over in and checks what must hold for any input: no panic
// (Process turns one into an "internal error" result), and an output that is
// itself a ResourceList.
func Fuzz(t *testing.T, f krmfn.Function, in []byte) {
	t.Helper()
	watchdog := time.AfterFunc(10*time.Second, func() {
		panic(fmt.Sprintf("%s took over 10s on input %q", f.Name, in))
	})
	defer watchdog.Stop()
	out, results := krmfn.Process(f, in, Env(Clock, nil))
	for _, r := range results {
		if strings.Contains(r.Message, "internal error") {
			t.Fatalf("%s crashed on input %q:\n%s", f.Name, in, r.Message)
		}
	}
	if _, err := resourcelist.Parse(out); err != nil {
		t.Fatalf("%s wrote output that is not a ResourceList (%v) for input %q:\n%s", f.Name, err, in, out)
	}
}
