package fanout_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

var writeBench = flag.String("write-bench-input", "", "write the benchmark ResourceLists (1,000 and 10,000 targets) to this folder")

// BenchmarkFanOut measures fan-out-variants next to an identity pass over
// the same ResourceList (the cost of reading and writing it), and a second
// run over its own output (every child exists and is unchanged).
func BenchmarkFanOut(b *testing.B) {
	env := krmtest.Env(krmtest.Clock, nil)
	for _, n := range []int{1000, 10000} {
		in := krmtest.Fleet(n)
		out, rs := krmfn.Process(fanout.Function, in, env)
		if rs.HasError() {
			b.Fatalf("fan-out-variants failed: %v", rs)
		}
		for _, c := range []struct {
			name string
			fn   krmfn.Function
			in   []byte
		}{
			{"identity", krmfn.Identity, in},
			{"append-only", appendOnly(b, out), in},
			{"fan-out", fanout.Function, in},
			{"identity-children", krmfn.Identity, out},
			{"fan-out-again", fanout.Function, out},
		} {
			b.Run(fmt.Sprintf("%s/targets=%d", c.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(c.in)))
				b.ReportAllocs()
				defer krmtest.CPU(b)()
				for b.Loop() {
					krmfn.Process(c.fn, c.in, env)
				}
			})
		}
	}
}

// appendOnly is a function that appends the children fan-out-variants
// makes, computed beforehand: the cost the ResourceList layer adds for
// writing that many new items, whatever function makes them.
func appendOnly(b *testing.B, out []byte) krmfn.Function {
	rl, err := resourcelist.Parse(out)
	if err != nil {
		b.Fatal(err)
	}
	var children []*yaml.Node
	for _, it := range rl.Select(func(h resourcelist.Header) bool { return h.Kind == porch.KindVariant }) {
		children = append(children, it.Node().YNode())
	}
	return krmfn.Function{Name: "append-only", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		for _, n := range children {
			if _, err := rl.Append(yaml.NewRNode(yaml.CopyYNode(n)), ""); err != nil {
				return err
			}
		}
		return nil
	}}
}

// TestBenchInput writes the benchmark inputs for measuring the binary:
// go test ./pkg/fanout -run TestBenchInput -write-bench-input=/tmp/fanout
func TestBenchInput(t *testing.T) {
	if *writeBench == "" {
		t.Skip("no -write-bench-input folder")
	}
	for _, n := range []int{1000, 10000} {
		if err := os.WriteFile(filepath.Join(*writeBench, fmt.Sprintf("fleet-%d.yaml", n)), krmtest.Fleet(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFleet checks the benchmark's input fans out fully and twice the same.
func TestFleet(t *testing.T) {
	t.Parallel()
	env := krmtest.Env(krmtest.Clock, nil)
	out, rs := krmfn.Process(fanout.Function, krmtest.Fleet(50), env)
	if rs.HasError() || len(rs) != 1 || rs[0].Message != "functionConfig PackageVariantSet/agent: PackageVariants: 50 created, 0 updated, 0 unchanged, 0 deleted" {
		t.Fatalf("first run: %v", rs)
	}
	again, rs := krmfn.Process(fanout.Function, out, env)
	if krmtest.ItemsOf(out) != krmtest.ItemsOf(again) || len(rs) != 1 ||
		rs[0].Message != "functionConfig PackageVariantSet/agent: PackageVariants: 0 created, 0 updated, 50 unchanged, 0 deleted" {
		t.Fatalf("second run changed items or reported %v", rs)
	}
}

// Targets rendered and encoded on several goroutines come out as on one:
// the same children in the same order, the same per-target errors.
func TestParallelSameAsSerial(t *testing.T) {
	// Not parallel: it changes GOMAXPROCS.
	in := bytes.Replace(krmtest.Fleet(1500), []byte("        annotationExprs:\n"), []byte(`        annotationExprs:
        - {key: broken, valueExpr: "repository.annotations['owner'] == 'team-3' ? repository.labels['missing'] : 'fine'"}
`), 1)
	out, results := krmtest.SameOnAnyProcessors(t, fanout.Function, in)
	if !strings.Contains(results, "no such key: missing") || !strings.Contains(string(out), "kind: PackageVariant") {
		t.Fatalf("the input should make children and per-target errors: %.500s", results)
	}
}
