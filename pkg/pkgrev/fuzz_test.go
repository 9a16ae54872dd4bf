package pkgrev

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// FuzzParseRef holds the reading of ref names: no panic, and a ref of
// Porch's read back makes the same ref again.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"refs/heads/main", "refs/heads/drafts/a/b/ws", "refs/heads/proposed/x/y", "refs/heads/deletionProposed/a/v1",
		"refs/tags/a/b/v3", "refs/tags/v1", "refs/heads/drafts/", "refs/tags//", "refs/remotes/origin/main"} {
		f.Add(s, "main")
	}
	f.Fuzz(func(t *testing.T, name, branch string) {
		p := ParseRef(name, branch)
		var again string
		switch p.Kind {
		case RefDraft:
			again = DraftRef(p.Path, p.Version)
		case RefProposed:
			again = ProposedRef(p.Path, p.Version)
		case RefTag:
			again = TagsPrefix + p.Path + "/" + p.Version
		case RefDeletionProposed:
			again = HeadsPrefix + deletionProposedPrefix + p.Path + "/" + p.Version
		case RefBranch:
			again = BranchRef(branch)
		default:
			return
		}
		if again != name {
			t.Errorf("ParseRef(%q) = %+v, which makes %q", name, p, again)
		}
		_ = Name("r", Relative(p.Path, ""), p.Version)
		_ = ParseRevision(p.Version)
	})
}

// FuzzReadKptfile holds the reading of a revision's Kptfile and of a pulled
// package's metadata: any bytes give a value or a clean error, never a
// panic.
func FuzzReadKptfile(f *testing.F) {
	f.Add([]byte(ready))
	f.Add([]byte(notReady))
	f.Add([]byte("apiVersion: porch.kpt.dev/v1alpha1\nkind: KptRevisionMetadata\nmetadata:\n  resourceVersion: abc\n"))
	f.Add([]byte("upstream: {git: [1]}\nstatus: {conditions: {a: b}}\n"))
	f.Add([]byte("&a [*a, *a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, _ := ReadKptfile(b)
		_ = k.Ready()
		_ = upstreamLock(k)
		_, _, _ = ResourceVersion(kptpkg.Files{MetadataFile: b})
	})
}

// anyPackage is a fake repository in which every folder holds a package,
// every commit is annotated from its hash (the fuzzer's text).
type anyPackage struct{}

func (anyPackage) Packages(commit, dir string) ([]Package, error) {
	return []Package{{Path: FullPath(dir, "app"), Tree: commit}, {Path: FullPath(dir, "a/b"), Tree: commit}}, nil
}
func (anyPackage) Package(commit, path string) (string, bool, error) { return commit, path != "", nil }
func (anyPackage) Commit(hash string) (Commit, error)                { return Commit{Hash: hash, Message: hash}, nil }
func (anyPackage) Log(from string, visit func(Commit) bool) error {
	visit(Commit{Hash: from, Message: from})
	return nil
}

// FuzzRead holds the listing of a repository's refs: any refs list without
// a panic, every revision named, at most one latest per package.
func FuzzRead(f *testing.F) {
	f.Add("refs/heads/main\nrefs/tags/d/app/v1\nrefs/heads/drafts/d/app/ws\nrefs/heads/deletionProposed/d/app/v1", "d", "kpt:{\"package\":\"d/app\",\"workspaceName\":\"w\"}")
	f.Add("refs/tags/d/v1\nrefs/tags/d/app/v1.2\nrefs/heads/proposed/d/x/y", "", "")
	f.Fuzz(func(t *testing.T, names, dir, message string) {
		var refs []Ref
		for _, n := range splitLines(names) {
			refs = append(refs, Ref{Name: n, Hash: message, Commit: message})
		}
		s, err := Read(Repository{Name: "r", Branch: "main", Directory: Directory(dir), CreateBranch: true}, refs, anyPackage{})
		if err != nil {
			return
		}
		latest := map[string]bool{}
		for _, r := range s.Revisions {
			if r.Name == "" || r.Package == "" {
				t.Errorf("a revision without a name: %+v", r)
			}
			if r.Latest && latest[r.Path] {
				t.Errorf("two latest revisions of %s", r.Path)
			}
			latest[r.Path] = latest[r.Path] || r.Latest
			_, _ = Tasks(anyPackage{}, &r)
		}
	})
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
