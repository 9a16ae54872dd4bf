package catalog_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

func cloned(name, repo, dir, ref, commit string) []byte {
	return fmt.Appendf(nil, `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: %s
upstream:
  type: git
  git: {repo: %s, directory: %s, ref: %s}
upstreamLock:
  type: git
  git: {repo: %s, directory: %s, ref: %s, commit: %s}
`, name, repo, dir, ref, repo, dir, ref, commit)
}

func TestInstalled(t *testing.T) {
	t.Parallel()
	const catalogRepo = "https://github.com/nephio-project/catalog.git"
	tags := func(repo string) (map[string]string, error) {
		if repo != catalogRepo {
			return nil, fmt.Errorf("not mapped")
		}
		return map[string]string{
			"infra/capi/cluster-capi/v1": "aaaaaaa1", "infra/capi/cluster-capi/v2": "bbbbbbb2",
			"infra/capi/cluster-capi/v2.1.0": "ccccccc3", "infra/capi/multus/v1": "bbbbbbb2", "v9": "bbbbbbb2",
		}, nil
	}
	d := catalog.Deployment{Name: "mgmt", Cluster: "mgmt", Files: kptpkg.Files{
		"Kptfile":                   kf("mgmt"), // the repository's own: no upstream
		"tagged/Kptfile":            cloned("tagged", catalogRepo, "/infra/capi/cluster-capi", "infra/capi/cluster-capi/v2", "bbbbbbb2"),
		"short/Kptfile":             cloned("short", catalogRepo, "/infra/capi/multus", "v1", "bbbbbbb2"),
		"by-commit/Kptfile":         cloned("by-commit", catalogRepo, "/infra/capi/cluster-capi", "ccccccc3cccccccccccccccccccccccccccccccc", "ccccccc3cccccccccccccccccccccccccccccccc"),
		"on-branch/Kptfile":         cloned("on-branch", catalogRepo, "/infra/capi/cluster-capi", "main", "dddddddd"),
		"unknown-commit/Kptfile":    cloned("unknown-commit", catalogRepo, "/infra/capi/cluster-capi", "eeeeeee5", "eeeeeee5"),
		"elsewhere/Kptfile":         cloned("elsewhere", "https://example.com/other.git", "/apps/web", "main", "fff"),
		"elsewhere/sub/app/Kptfile": cloned("app", catalogRepo, "/nephio/core/porch", "nephio/core/porch/v3", "x"),
		"unlocked/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: unlocked\nupstream:\n  type: git\n  git: {repo: " +
			catalogRepo + ", directory: /infra/capi/multus, ref: infra/capi/multus/v1}\n"), // no upstreamLock: the upstream says
	}}
	sources := []catalog.Source{{Name: "catalog-infra-capi", Repo: "https://github.com/nephio-project/catalog", Dir: "infra/capi"}}
	pkgs, rs := catalog.Installed(d, sources, tags)
	var got []string
	for _, p := range pkgs {
		got = append(got, fmt.Sprintf("%s: %s %s in %s", p.Metadata.Name, p.Spec.Package, p.Spec.Version, p.Spec.Cluster))
	}
	for _, r := range result.List(rs).Sorted() {
		got = append(got, r.String())
	}
	want := []string{
		"mgmt.by-commit: cluster-capi v2.1.0 in mgmt",
		"mgmt.elsewhere.sub.app: nephio/core/porch v3 in mgmt",
		"mgmt.on-branch: cluster-capi v2.1.0 in mgmt",
		"mgmt.short: multus v1 in mgmt",
		"mgmt.tagged: cluster-capi v2 in mgmt",
		"mgmt.unlocked: multus v1 in mgmt",
		`warning: mgmt: elsewhere/Kptfile: cannot tell which version of apps/web it holds: ref "main" is not a version tag, and the tags of https://example.com/other.git cannot be read: not mapped`,
		`warning: mgmt: on-branch/Kptfile: ref "main" is a branch: taken as the latest version, v2.1.0 (lock a version tag to be exact)`,
		"warning: mgmt: unknown-commit/Kptfile: cannot tell which version of cluster-capi it holds: commit eeeeeee5 is no version of it (no tag infra/capi/cluster-capi/vN points at it)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReleaseTag(t *testing.T) {
	t.Parallel()
	type got struct {
		Pkg, Version string
		OK           bool
	}
	for _, tc := range []struct {
		tag, dir string
		want     got
	}{
		{"catalog/db/v1", "catalog", got{"db", "v1", true}},
		{"catalog/db/sub/v1.2.0", "catalog", got{"db/sub", "v1.2.0", true}},
		{"catalog/v3", "catalog", got{"", "v3", true}},
		{"db/v2", "", got{"db", "v2", true}},
		{"v2", "", got{"", "v2", true}},
		{"other/db/v1", "catalog", got{}},
		{"catalog/db/1.0.0", "catalog", got{}},
		{"catalog/db/vnext", "catalog", got{}},
		{"release-notes", "", got{}},
	} {
		p, v, ok := catalog.ReleaseTag(tc.tag, tc.dir)
		if diff := cmp.Diff(tc.want, got{p, v, ok}); diff != "" {
			t.Errorf("ReleaseTag(%q, %q) (-want +got):\n%s", tc.tag, tc.dir, diff)
		}
	}
}
