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

	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// memStore is a Store in memory: the output's files by path, as a disk
// holds them (a package's folder may hold other packages).
type memStore struct {
	mu    sync.Mutex
	files kptpkg.Files
}

func newMemStore() *memStore { return &memStore{files: kptpkg.Files{}} }

// packages returns the packages of the output (as Packages lists them)
// with their files.
func (s *memStore) packages() map[string]kptpkg.Files {
	stored, _ := s.Packages()
	out := map[string]kptpkg.Files{}
	for _, st := range stored {
		out[st.Path] = s.pkg(st.Path)
	}
	return out
}

// pkg returns the files below p.
func (s *memStore) pkg(p string) kptpkg.Files {
	files, _ := s.Read(p)
	return files
}

// set replaces the files below p.
func (s *memStore) set(p string, files kptpkg.Files) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for f := range s.files {
		if strings.HasPrefix(f, p+"/") {
			delete(s.files, f)
		}
	}
	for f, b := range files {
		s.files[p+"/"+f] = b
	}
}

func (s *memStore) Packages() ([]fleet.Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pkgs := kptpkg.Files{}
	for f, b := range s.files {
		if filepath.Base(f) == kptfile.FileName {
			pkgs[filepath.Dir(f)] = b
		}
	}
	var out []fleet.Stored
	for _, p := range slices.SortedFunc(maps.Keys(pkgs), kptpkg.ComparePaths) {
		if len(out) == 0 || !strings.HasPrefix(p, out[len(out)-1].Path+"/") {
			out = append(out, fleet.Stored{Path: p, Kptfile: pkgs[p]})
		}
	}
	return out, nil
}

func (s *memStore) Read(p string) (kptpkg.Files, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out kptpkg.Files
	for f, b := range s.files {
		if rel, ok := strings.CutPrefix(f, p+"/"); ok {
			if out == nil {
				out = kptpkg.Files{}
			}
			out[rel] = b
		}
	}
	return out, nil
}

func (s *memStore) Write(p string, old, files kptpkg.Files) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wrote := false
	for f, b := range files {
		was, read := old[f]
		if read && string(was) == string(b) {
			continue
		}
		if _, there := s.files[p+"/"+f]; there && !read {
			return false, fmt.Errorf("cannot write %s: a file kptkit did not read is in its place", f)
		}
	}
	for f, b := range files {
		if was, read := old[f]; !read || string(was) != string(b) {
			s.files[p+"/"+f] = b
			wrote = true
		}
	}
	for f := range old {
		if _, ok := files[f]; !ok {
			delete(s.files, p+"/"+f)
			wrote = true
		}
	}
	return wrote, nil
}

func (s *memStore) Delete(p string, files kptpkg.Files) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for f := range files {
		delete(s.files, p+"/"+f)
	}
	return nil
}

// readInput reads a case's variants.yaml and cluster.yaml (either may be
// absent) as variants render reads them: the variants as nodes, the
// cluster's objects as text; each named by its file's base name.
func readInput(t *testing.T, dir string) fleet.Input {
	t.Helper()
	var in fleet.Input
	if b := readCase(t, filepath.Join(dir, "variants.yaml")); b != nil {
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatal(err)
		}
		in.Variants, in.VariantFiles = nodes, named("variants.yaml", len(nodes))
	}
	if b := readCase(t, filepath.Join(dir, "cluster.yaml")); b != nil {
		texts, err := kptpkg.ReadTexts(b)
		if err != nil {
			t.Fatal(err)
		}
		in.Cluster, in.ClusterFiles = texts, named("cluster.yaml", len(texts))
	}
	return in
}

// readCase returns a case's file, nil when there is none.
func readCase(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

// named returns a file's name n times.
func named(file string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = file
	}
	return out
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
	in := readInput(t, dir)
	flags, _ := os.ReadFile(filepath.Join(dir, "flags"))
	store := newMemStore()
	for f, b := range readTree(t, filepath.Join(dir, "before")) {
		store.files[f] = b
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
	for f, b := range store.files {
		got["after/"+f] = string(b)
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
