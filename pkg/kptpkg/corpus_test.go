package kptpkg_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"

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

// TestEncodeCorpus: every resource file of the Nephio catalog, read and
// encoded, gives the bytes kyaml's ByteWriter gives (Encode's emitter path
// or its fallback), with the annotations kpt's reader adds cleared.
func TestEncodeCorpus(t *testing.T) {
	t.Parallel()
	files, emitted := 0, 0
	for dir, pkg := range corpusPackages(t) {
		for _, p := range pkg.ResourcePaths("", true) {
			items, err := kptpkg.Items(p, pkg[p])
			if err != nil {
				continue
			}
			var want bytes.Buffer
			w := kio.ByteWriter{Writer: &want, ClearAnnotations: kptfile.BookkeepingAnnotations}
			if err := w.Write(items); err != nil {
				t.Fatal(err)
			}
			got, err := kptpkg.Encode(items)
			if err != nil || !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s/%s: Encode differs from the ByteWriter (err %v):\n%s", dir, p, err, cmp.Diff(want.String(), string(got)))
			}
			files++
			if kptpkg.Emitted(items) {
				emitted++
			}
		}
	}
	t.Logf("%d of %d files written by the emitter", emitted, files)
}
