package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// porchTestdata returns the folder of the repositories Porch's own git
// adapter tests list (pkg/externalrepo/git/testdata in Porch v1.5.8's
// module), or skips the test when the module cache does not hold it.
func porchTestdata(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("no go env: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com/nephio-project/porch@v1.5.8/pkg/externalrepo/git/testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("Porch v1.5.8 is not in the module cache (go mod download github.com/nephio-project/porch@v1.5.8)")
	}
	return dir
}

// untar extracts one of Porch's test repositories.
func untar(t *testing.T, tarball string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tar", "xf", tarball, "-C", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot extract %s: %v %s", tarball, err, out)
	}
	return dir
}

// keys lists revisions as Porch's tests key them: package/workspace (or
// package/revision) and lifecycle.
func keys(revs []pkgrev.Revision, topOnly bool) map[string]string {
	out := map[string]string{}
	for _, r := range revs {
		if topOnly && strings.Contains(r.Package, "/") {
			continue
		}
		out[fmt.Sprintf("%s/%s/%d", r.Package, r.Workspace, r.Revision)] = r.Lifecycle
	}
	return out
}

// TestPorchsOwnRepositories lists the repositories of Porch's git adapter
// tests and compares with what those tests expect Porch to list
// (TestListPackagesDrafts, TestNestedDirectories).
func TestPorchsOwnRepositories(t *testing.T) {
	t.Parallel()
	data := porchTestdata(t)
	for _, tc := range []struct {
		tarball, dir string
		topOnly      bool
		want         map[string]string
	}{
		{"drafts-repository.tar", "", false, map[string]string{
			"empty/v1/1": "Published", "basens/v1/1": "Published", "basens/v2/2": "Published",
			"istions/v1/1": "Published", "istions/v2/2": "Published",
			"bucket/v1/0": "Draft", "none/v1/0": "Draft", "pkg-with-history/v1/0": "Draft",
			"basens/main/-1": "Published", "empty/main/-1": "Published", "istions/main/-1": "Published",
		}},
		{"nested-repository.tar", "", true, map[string]string{
			"sample/v1/1": "Published", "sample/v2/2": "Published", "sample/main/-1": "Published",
		}},
		{"nested-repository.tar", "nonexistent", false, map[string]string{}},
		{"nested-repository.tar", "catalog/gcp", false, map[string]string{
			"cloud-sql/v1/0": "Draft", "spanner/v1/0": "Draft", "bucket/v2/0": "Draft",
			"bucket/v1/1": "Published", "bucket/main/-1": "Published",
		}},
	} {
		t.Run(tc.tarball+":"+tc.dir, func(t *testing.T) {
			dir := untar(t, filepath.Join(data, tc.tarball))
			repo := pkgrev.Repository{Name: "r", Namespace: "default", URL: dir, Branch: "main", Directory: tc.dir}
			s := snapshot(t, open(t, dir), repo)
			if diff := cmp.Diff(tc.want, keys(s.Revisions, tc.topOnly)); diff != "" {
				t.Errorf("revisions (-want +got):\n%s", diff)
			}
		})
	}
}
