package builtinfn

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/render"
)

// replacementLists returns, for every package tree under the folders
// given, a ResourceList of its items for each ApplyReplacements among
// them as the functionConfig, and one with a config of another kind.
func replacementLists(t testing.TB, dirs ...string) map[string][]byte {
	t.Helper()
	other, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]byte{}
	for _, dir := range dirs {
		files, err := kptpkg.Read(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		items, err := files.Resources("", true)
		if err != nil {
			t.Logf("%s: %v", dir, err) // an example that is not a kpt package
			continue
		}
		cfgs := []*yaml.RNode{other}
		for _, n := range items {
			if n.GetKind() == "ApplyReplacements" {
				cfgs = append(cfgs, n)
			}
		}
		for i, fc := range cfgs {
			if lists[fmt.Sprintf("%s (config %d)", dir, i)], err = render.EncodeList(items, fc, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	return lists
}

// examplePackages returns the folders under examples/ that hold a Kptfile.
func examplePackages(t testing.TB) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("../../examples", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "Kptfile" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// sameAsSDK fails unless apply-replacements on kptkit's nodes gives in's
// output, error and panic as the catalog's own processor does under run:
// the SDK's fn.Run, or runSDK (the SDK path kptkit takes otherwise).
func sameAsSDK(t testing.TB, run func(sdk.ResourceListProcessor, []byte) ([]byte, error), name string, in []byte) {
	t.Helper()
	want, werr, wp := catch(func() ([]byte, error) { return run(applyReplacements, in) })
	got, gerr, gp := catch(func() ([]byte, error) { return runSDK(applyReplacementsFast, in) })
	if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) || (wp == nil) != (gp == nil) {
		t.Errorf("apply-replacements on %s: differs from fn.Run (errors %v, %v; panics %v, %v)\n--- got\n%s\n--- want\n%s", name, gerr, werr, gp, wp, got, want)
	}
}

func catch(f func() ([]byte, error)) (out []byte, err error, p any) {
	defer func() { p = recover() }()
	out, err = f()
	return out, err, nil
}

// TestApplyReplacementsCorpus: apply-replacements on kptkit's nodes gives,
// for every package of the Nephio catalog and every example with each
// ApplyReplacements among its items as the config, the bytes the
// catalog's processor gives under the SDK's fn.Run.
func TestApplyReplacementsCorpus(t *testing.T) {
	t.Parallel()
	dirs := examplePackages(t)
	if len(dirs) < 10 {
		t.Fatalf("%d example packages", len(dirs))
	}
	for name, in := range replacementLists(t, append(dirs, corpus.Packages(t)...)...) {
		sameAsSDK(t, sdk.Run, name, in)
	}
}

// FuzzApplyReplacements: apply-replacements on kptkit's nodes gives what
// the catalog's processor gives on the SDK path (runSDK), for any
// ResourceList. (runSDK reads some lists that are not kptkit's, such as
// "0:", where fn.Run refuses them: TestWriteSDKCorpus holds it to fn.Run
// on real lists, and so does TestApplyReplacementsCorpus.)
func FuzzApplyReplacements(f *testing.F) {
	const cfg = "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: ApplyReplacements\n  metadata:\n    name: r\n  replacements:\n" +
		"  - source: {kind: ConfigMap, name: src, fieldPath: data.color}\n    targets:\n    - select: {kind: Deployment}\n      fieldPaths: [metadata.labels.color, spec.template.spec.containers.0.image]\n      options: {create: true}\n" +
		"  - source: {kind: ConfigMap, name: src, fieldPath: data}\n    targets:\n    - select: {name: d}\n      fieldPaths: [spec.copy]\n      options: {create: true}\n"
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	for _, items := range []string{
		"items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: src\n  data:\n    color: blue # the colour\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\n  spec:\n    replicas: 1 # by hand\n",
		"items:\n# head\n- apiVersion: v1 # line\n  kind: ConfigMap\n  metadata:\n    name: src\n  data:\n    # above\n    color: 'blue'\n    x: |\n      literal\n    # foot\n\n# list foot\n- kind: Deployment\n  apiVersion: apps/v1\n  metadata: {name: d, labels: {color: red}}\n  spec:\n    template:\n      spec:\n        containers:\n          - name: c\n            image: \"x\" # img\n",
		"items:\n- &a\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: src\n  data:\n    color: &c blue\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\n    labels: {l: *c}\n",
		"items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: src, annotations: {config.kubernetes.io/index: '0'}}\n  data: {color: \"0x1\"}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\n  spec: {}\n",
	} {
		f.Add([]byte(head + items + cfg))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sameAsSDK(t, runSDK, "input", in)
	})
}
