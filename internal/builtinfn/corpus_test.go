package builtinfn

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"testing"

	sdk "github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/render"
)

// corpusLists returns every package of the Nephio catalog as a
// ResourceList with the given functionConfig.
func corpusLists(t *testing.T, cfg string) map[string][]byte {
	t.Helper()
	fc, err := yaml.Parse(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]byte{}
	for _, p := range corpus.Packages(t) {
		files, err := kptpkg.Read(os.DirFS(p))
		if err != nil {
			t.Fatal(err)
		}
		items, err := files.Resources("", true)
		if err != nil {
			t.Fatal(err)
		}
		if lists[p], err = render.EncodeList(items, fc, nil); err != nil {
			t.Fatal(err)
		}
	}
	return lists
}

// TestWriteSDKCorpus: the built-ins written for the SDK give, over every
// package of the catalog, the bytes the SDK's own fn.Run gives.
func TestWriteSDKCorpus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		p    sdk.ResourceListProcessor
		cfg  string
		max  int // packages to try
	}{
		{"set-namespace", setNamespace, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {namespace: prod}\n", 1000},
		{"starlark", starlarkProcess, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {source: pass}\n", 15},
		{"failing", setNamespace, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", 5},
	} {
		n := 0
		for p, in := range corpusLists(t, c.cfg) {
			if n++; n > c.max {
				break
			}
			want, werr := sdk.Run(c.p, in)
			got, gerr := runSDK(c.p, in)
			// set-namespace lists the namespaces it changed in map order
			want, got = namespaceList.ReplaceAllFunc(want, sortList), namespaceList.ReplaceAllFunc(got, sortList)
			if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
				t.Errorf("%s on %s: differs from fn.Run (errors %v, %v)", c.name, p, gerr, werr)
			}
		}
	}
}

// TestExecuteFrameworkCorpus: apply-setters through executeFramework gives
// the bytes kyaml's framework.Execute gives, over the catalog.
func TestExecuteFrameworkCorpus(t *testing.T) {
	t.Parallel()
	for p, in := range corpusLists(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {project-id: p1, name: n1, namespace: ns1}\n") {
		var want bytes.Buffer
		werr := framework.Execute(ApplySetters, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &want, KeepReaderAnnotations: true})
		got, gerr := executeFramework(ApplySetters, in)
		if !bytes.Equal(got, want.Bytes()) || (werr == nil) != (gerr == nil) {
			t.Errorf("apply-setters on %s: differs from framework.Execute (errors %v, %v)", p, gerr, werr)
		}
	}
}

var namespaceList = regexp.MustCompile(`namespace ("[^"]*",?)+ updated`)

func sortList(m []byte) []byte {
	list := bytes.Split(m[len("namespace "):len(m)-len(" updated")], []byte(","))
	slices.SortFunc(list, bytes.Compare)
	return append(append([]byte("namespace "), bytes.Join(list, []byte(","))...), " updated"...)
}
