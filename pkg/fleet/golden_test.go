package fleet_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// memStore is a Store in memory.
type memStore struct {
	mu   sync.Mutex
	pkgs map[string]kptpkg.Files
}

func (s *memStore) Packages() ([]fleet.Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []fleet.Stored
	for _, p := range slices.Sorted(maps.Keys(s.pkgs)) {
		out = append(out, fleet.Stored{Path: p, Kptfile: s.pkgs[p][kptfile.FileName]})
	}
	return out, nil
}

func (s *memStore) Read(p string) (kptpkg.Files, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pkgs[p], nil
}

func (s *memStore) Write(p string, files kptpkg.Files) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.pkgs[p]; ok && old.Equal(files) {
		return false, nil
	}
	s.pkgs[p] = files
	return true, nil
}

func (s *memStore) Delete(p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pkgs, p)
	return nil
}

// readObjects reads the documents of a YAML file, if there is one.
func readObjects(t *testing.T, file string) ([]*yaml.RNode, []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	where := make([]string, len(nodes))
	for i := range where {
		where[i] = filepath.Base(file)
	}
	return nodes, where
}

func readTree(t *testing.T, dir string) kptpkg.Files {
	t.Helper()
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil
	}
	files, err := kptpkg.Read(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGolden renders each folder of testdata: variants.yaml, cluster.yaml,
// upstream/ (a folder of upstream packages), before/ (the output as it is)
// and flags (prune-all, on-conflict-upstream) go in; after/ (the output),
// status.yaml and report.txt are compared, and written with -update.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases, err := filepath.Glob("testdata/*/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			golden(t, dir)
		})
	}
}

func golden(t *testing.T, dir string) {
	var in fleet.Input
	in.Variants, in.VariantFiles = readObjects(t, filepath.Join(dir, "variants.yaml"))
	in.Cluster, in.ClusterFiles = readObjects(t, filepath.Join(dir, "cluster.yaml"))
	flags, _ := os.ReadFile(filepath.Join(dir, "flags"))
	store := &memStore{pkgs: map[string]kptpkg.Files{}}
	before := readTree(t, filepath.Join(dir, "before"))
	for _, p := range before.Packages() {
		if !strings.Contains(p, "/") || before.PackageOf(filepath.Dir(p)) == "" {
			store.pkgs[p] = before.Sub(p)
		}
	}
	opts := fleet.Options{
		Source:       &upstream.Source{Folder: readTree(t, filepath.Join(dir, "upstream")), FolderName: "upstream"},
		Store:        store,
		Env:          krmtest.Env(krmtest.Clock, nil),
		Jobs:         3,
		Prune:        true,
		PruneAll:     strings.Contains(string(flags), "prune-all"),
		TakeUpstream: strings.Contains(string(flags), "on-conflict-upstream"),
		Salt:         "test",
	}
	report, err := fleet.Run(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	var status bytes.Buffer
	if err := (kio.ByteWriter{Writer: &status}).Write(report.Status); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"status.yaml": status.String(), "report.txt": describe(report)}
	for p, files := range store.pkgs {
		for f, b := range files {
			got["after/"+p+"/"+f] = string(b)
		}
	}
	want := map[string]string{}
	for _, f := range []string{"status.yaml", "report.txt"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		want[f] = string(b)
	}
	for f, b := range readTree(t, filepath.Join(dir, "after")) {
		want["after/"+f] = string(b)
	}
	if krmtest.Update() {
		_ = os.RemoveAll(filepath.Join(dir, "after"))
		for f, b := range got {
			target := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got; go test ./pkg/fleet -run TestGolden -update rewrites):\n%s", dir, diff)
	}
}

// describe prints a report for people, deterministically.
func describe(r *fleet.Report) string {
	var b strings.Builder
	for _, v := range r.Variants {
		fmt.Fprintf(&b, "%s/%s: %s\n", v.Namespace, v.Name, v)
		for _, res := range v.Results {
			fmt.Fprintf(&b, "  %s: %s\n", res.Severity, res.Message)
		}
	}
	for _, rm := range r.Removed {
		fmt.Fprintf(&b, "removed %s (owner %s, released %v)\n", rm.Path, rm.Owner, rm.Released)
	}
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%s: %s\n", res.Severity, res.Message)
	}
	n := r.Counts()
	fmt.Fprintf(&b, "counts: %d created, %d updated, %d unchanged, %d deleted, %d released, %d failed\n",
		n.Created, n.Updated, n.Unchanged, n.Deleted, n.Released, n.Failed)
	return b.String()
}
