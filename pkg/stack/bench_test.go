package stack_test

import (
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack"
)

// BenchmarkApply measures apply-stack over a 10,000-resource package, the
// first apply (no Stack yet) and an unchanged re-apply (the Stack the first
// wrote), each next to an identity pass over the same ResourceList: the cost
// of reading and writing it.
func BenchmarkApply(b *testing.B) {
	first := krmtest.StackPackage(10000)
	env := krmtest.Env(krmtest.Clock, nil)
	again, results := krmfn.Process(stack.Function, first, env)
	if results.HasError() {
		b.Fatalf("first apply: %.300v", results)
	}
	record, applied := recordSize(b, again)
	for _, input := range []struct {
		name string
		in   []byte
	}{{"first", first}, {"reapply", again}} {
		for _, f := range []krmfn.Function{krmfn.Identity, stack.Function} {
			b.Run(input.name+"/"+f.Name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(input.in)))
				report := krmtest.CPU(b)
				for b.Loop() {
					if _, rs := krmfn.Process(f, input.in, env); rs.HasError() {
						b.Fatal(rs)
					}
				}
				report()
				if f.Name == stack.Function.Name {
					b.ReportMetric(float64(record), "record-B")
					b.ReportMetric(float64(applied), "lastApplied-B")
				}
			})
		}
	}
}

// recordSize returns the size of the Stack item an apply wrote (as the
// ResourceList holds it) and of its lastApplied.
func recordSize(b *testing.B, out []byte) (record, applied int) {
	b.Helper()
	rl, err := resourcelist.Parse(out)
	if err != nil {
		b.Fatal(err)
	}
	stacks := rl.Select(stack.IsStack)
	if len(stacks) != 1 {
		b.Fatalf("%d Stacks", len(stacks))
	}
	s, err := stacks[0].Node().String()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "lastApplied: ") {
			applied = len(line)
		}
	}
	return len(s), applied
}

// An unchanged re-apply of the big package leaves its items byte-identical.
func TestBigReapplyUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("big package")
	}
	t.Parallel()
	env := krmtest.Env(krmtest.Clock, nil)
	out, results := krmfn.Process(stack.Function, krmtest.StackPackage(900), env)
	if results.HasError() || len(results) == 0 || !strings.HasPrefix(results[0].Message, "created ") {
		t.Fatalf("first apply results: %.300v", results)
	}
	again, results := krmfn.Process(stack.Function, out, env)
	if len(results) != 1 || results[0].Message != "no changes" {
		t.Fatalf("re-apply results: %v", results)
	}
	if krmtest.ItemsOf(out) != krmtest.ItemsOf(again) {
		t.Error("an unchanged re-apply changed the items")
	}
}
