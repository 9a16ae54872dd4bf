package kptpkg_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
)

// corpusPackages reads every package tree of the Nephio catalog.
func corpusPackages(t *testing.T) map[string]kptpkg.Files {
	t.Helper()
	pkgs := map[string]kptpkg.Files{}
	for _, dir := range corpus.Packages(t) {
		files, err := kptpkg.Read(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		pkgs[dir] = files
	}
	return pkgs
}

// TestRoundTripCorpus: read, through set-package-context, and sunk, every
// package of the Nephio catalog comes back byte-identical but for the one
// key set in its package context; read with no change at all, it comes back
// whole.
func TestRoundTripCorpus(t *testing.T) {
	t.Parallel()
	cfg, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: function-input}\ndata: {touched: \"yes\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	for dir, files := range corpusPackages(t) {
		before, err := files.Resources("", true)
		if err != nil {
			t.Errorf("%s: Resources: %v", dir, err)
			continue
		}
		same, err := kptpkg.Sink(kptpkg.Copy(before), before, files)
		if err != nil || !same.Equal(files) {
			t.Errorf("%s: unchanged items do not give back the files (err %v)", dir, err)
		}
		rl := kptpkg.ResourceList(kptpkg.Copy(before), nil, cfg)
		krmfn.Apply(pkgcontext.Function, rl, krmtest.Env(krmtest.Clock, nil))
		got, err := kptpkg.Sink(rl.Nodes(), before, files)
		if err != nil {
			t.Errorf("%s: Sink: %v", dir, err)
			continue
		}
		want := files.Clone()
		if ctx, ok := files["package-context.yaml"]; ok && strings.Contains(string(ctx), "kptfile.kpt.dev") {
			// The changed file is written anew (as kpt writes it), with the key.
			if !strings.Contains(string(got["package-context.yaml"]), "\n  touched: \"yes\"\n") {
				t.Errorf("%s: package-context.yaml lacks the key:\n%s", dir, got["package-context.yaml"])
			}
			want["package-context.yaml"] = got["package-context.yaml"]
		}
		if diff := cmp.Diff(texts(want), texts(got)); diff != "" {
			t.Errorf("%s: files changed (-want +got):\n%s", dir, diff)
		}
	}
}
