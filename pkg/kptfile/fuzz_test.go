package kptfile_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// FuzzRead: any bytes give a Kptfile kpt would read, or an error; never a
// panic. What Read takes, Check takes and its lineage decodes; what Parse
// takes, Edit writes back.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  git: {repo: r}\n",
		"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\n",
		"apiVersion: a/b/c\nkind: Kptfile\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nupstreamLock: [x]\n",
		"apiVersion: v1\nkind: Kptfile\n---\napiVersion: v1\nkind: Kptfile\n",
		"- a\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if kf, err := kptfile.Read("Kptfile", b); err == nil {
			if err := kptfile.Check(kf); err != nil {
				t.Errorf("Read took a Kptfile Check refuses: %v", err)
			}
			if _, err := kptfile.LineageOf(kf); err != nil {
				t.Errorf("Read took a Kptfile whose lineage does not decode: %v", err)
			}
		}
		if _, err := kptfile.Parse("Kptfile", b); err == nil {
			if _, err := kptfile.Edit(kptpkg.Files{"Kptfile": b}, func(*yaml.RNode) error { return nil }); err != nil {
				t.Errorf("Edit refused what Parse took: %v", err)
			}
		}
	})
}
