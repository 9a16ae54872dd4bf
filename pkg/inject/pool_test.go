package inject_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// TestPoolSameAsInClusterItems: every golden case whose in-cluster items
// pool without problems gives the same output and results when the objects
// come in a shared Pool instead of the ResourceList, given as their text
// (as a fleet gives them) or as their nodes.
func TestPoolSameAsInClusterItems(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob("testdata/*/resourcelist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range dirs {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, wantRs := runItems(t, in)
		for _, asText := range []bool{false, true} {
			got, gotRs, ok := runWithPool(t, in, asText)
			if !ok {
				continue
			}
			compared++
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (text %v): output (-items +pool):\n%s", f, asText, diff)
			}
			if diff := cmp.Diff(wantRs, gotRs); diff != "" {
				t.Errorf("%s (text %v): results (-items +pool):\n%s", f, asText, diff)
			}
		}
	}
	if compared < 10 {
		t.Errorf("compared %d cases, want at least 10", compared)
	}
}

func runItems(t *testing.T, in []byte) ([]byte, []string) {
	t.Helper()
	out, rs := krmfn.Process(inject.Function, in, krmfn.Env{})
	return out, messages(rs)
}

// runWithPool moves the in-cluster items into a Pool, as nodes or as their
// text; ok is false when the case cannot run that way (no config, or
// objects the pool refuses).
func runWithPool(t *testing.T, in []byte, asText bool) ([]byte, []string, bool) {
	t.Helper()
	rl, err := resourcelist.Parse(in)
	if err != nil {
		return nil, nil, false
	}
	c := krmfn.ConfigOf(rl)
	if c == nil {
		return nil, nil, false
	}
	req, rs := inject.RequestFrom(c)
	if len(rs) > 0 {
		return nil, nil, false
	}
	var objs []*inject.Object
	for _, it := range rl.Select(resourcelist.Header.InCluster) {
		o := &inject.Object{Header: it.Header(), Node: it.Node(), Where: it.Header().Where()}
		if asText {
			o.Node, o.Text = nil, o.Node.MustString()
		}
		objs = append(objs, o)
		rl.Delete(it)
	}
	pool, prs := inject.NewPool(objs)
	if len(prs) > 0 {
		return nil, nil, false
	}
	req.Pool = pool
	rl.AddResults(inject.Apply(rl, req)...)
	out, err := rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	return out, messages(rl.Results()), true
}
