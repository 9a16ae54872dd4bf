package pkgupdate_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

func TestUpdateErrors(t *testing.T) {
	t.Parallel()
	good := clone(t, upstreamV1(), origin1)
	v1 := upstreamV1()
	with := func(files kptpkg.Files, p, content string) kptpkg.Files {
		out := files.Clone()
		if content == "" {
			delete(out, p)
		} else {
			out[p] = []byte(content)
		}
		return out
	}
	lineageless := kptfile("app")
	for _, c := range []struct {
		name                string
		old, updated, local kptpkg.Files
		origin              pkgupdate.Origin
		want                string
	}{
		{"no Kptfile", v1, v1, with(good, "Kptfile", ""), origin2,
			`error reading Kptfile at "Kptfile": the package has none`},
		{"no upstream", v1, v1, with(good, "Kptfile", lineageless), origin2,
			"package must have an upstream reference"},
		{"no upstreamLock", v1, v1, with(good, "Kptfile", lineageless+"upstream:\n  type: git\n  git:\n    repo: r\n    directory: d\n    ref: main\n"), origin2,
			"the package's Kptfile has no upstreamLock: nothing tells which upstream revision it was made from (clone it again)"},
		{"a Kptfile that is not YAML", v1, v1, with(good, "Kptfile", "apiVersion: [\n"), origin2,
			`the local package: cannot read Kptfile: MalformedYAMLError: yaml: line 1: did not find expected node content`},
		{"a Kptfile of two documents", v1, v1, with(good, "Kptfile", string(good["Kptfile"])+"---\n"+kptfile("b")), origin2,
			`the local package: error reading Kptfile at "Kptfile": it holds 2 documents: a Kptfile is one`},
		{"an old Kptfile", v1, v1, with(good, "Kptfile", "apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: app\n"), origin2,
			`the local package: error reading Kptfile at "Kptfile": old resource version "v1alpha2" found in Kptfile`},
		{"a lineage of the wrong shape", v1, v1, with(good, "Kptfile", lineageless+"upstream:\n  git: main\nupstreamLock: [x]\n"), origin2,
			`the local package: error reading Kptfile at "Kptfile": upstream.git: must be a mapping, not "main"; upstreamLock: must be a mapping, not a list`},
		{"a subpackage Kptfile that is not one", v1, v1, with(good, "sub/Kptfile", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), origin2,
			`the local package: error reading Kptfile at "sub/Kptfile": unknown resource type "/v1, Kind=ConfigMap" found in Kptfile`},
		{"a local resource that does not parse", v1, v1, with(good, "cm.yaml", "a: [\n"), origin2,
			`the local package: cannot read cm.yaml: MalformedYAMLError: yaml: line 1: did not find expected node content`},
		{"an old upstream resource that does not parse", with(v1, "cm.yaml", "a: [\n"), v1, good, origin2,
			`the original upstream package: cannot read cm.yaml: MalformedYAMLError: yaml: line 1: did not find expected node content`},
		{"a new upstream document that is not a resource", v1, with(v1, "cm.yaml", "a: b\n"), good, origin2,
			`the updated upstream package: cm.yaml: document 0 is not a resource (it needs apiVersion and kind)`},
		{"a duplicate resource downstream", v1, v1, with(good, "cm.yaml", string(good["cm.yaml"])+"---\n"+string(good["old.yaml"])+"---\n"+string(good["old.yaml"])), origin2,
			`found duplicate "local" resources in file "cm.yaml", please refer to "update" documentation for the fix: ConfigMap/old`},
		{"a duplicate resource upstream", v1, with(v1, "old.yaml", configMap("old", "k: v")+"---\n"+configMap("old", "k: w")), good, origin2,
			`found duplicate "updated upstream" resources in file "old.yaml", please refer to "update" documentation for the fix: ConfigMap/old`},
		{"a subpackage added on both sides", v1, with(v1, "new/Kptfile", kptfile("new")), with(good, "new/Kptfile", kptfile("new")), origin2,
			`subpackage "new" added in both upstream and local`},
		{"no repo", v1, v1, good, pkgupdate.Origin{Directory: "d", Ref: "r", Commit: "c"}, "must specify repo"},
		{"no ref", v1, v1, good, pkgupdate.Origin{Repo: "r", Directory: "d", Commit: "c"}, "must specify ref"},
		{"no directory", v1, v1, good, pkgupdate.Origin{Repo: "r", Ref: "r", Commit: "c"}, "must specify directory"},
		{"no commit", v1, v1, good, pkgupdate.Origin{Repo: "r", Directory: "d", Ref: "r"},
			"cannot update from an upstream without a commit (a folder): clone the package again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			files, conflicts, err := pkgupdate.Update(c.old, c.updated, c.local, c.origin, pkgupdate.KeepLocal)
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant  %s", err, c.want)
			}
			if files != nil || conflicts != nil {
				t.Errorf("an error and files or conflicts: %v, %v", files, conflicts)
			}
		})
	}
}

func TestCloneErrors(t *testing.T) {
	t.Parallel()
	unfetched := kptpkg.Files{
		"Kptfile":     []byte(kptfile("app")),
		"lib/Kptfile": []byte(kptfile("lib") + "upstream:\n  type: git\n  git:\n    repo: r\n    directory: d\n    ref: main\n"),
	}
	for _, c := range []struct {
		name     string
		upstream kptpkg.Files
		pkg      string
		origin   pkgupdate.Origin
		want     string
	}{
		{"no name", upstreamV1(), "", origin1, "must specify the package name"},
		{"no repo", upstreamV1(), "app", pkgupdate.Origin{Directory: "d", Ref: "r"}, "must specify repo"},
		{"an unfetched subpackage", unfetched, "app", origin1,
			`subpackage "lib" has an upstream and no upstreamLock: kpt would fetch it, which a clone here does not do`},
		{"a Kptfile that is not a Kptfile", kptpkg.Files{"Kptfile": []byte("apiVersion: v1\nkind: Kptfile\n")}, "app", origin1,
			`the upstream package: error reading Kptfile at "Kptfile": unknown resource type "/v1, Kind=Kptfile" found in Kptfile`},
		{"a resource that does not parse", kptpkg.Files{"a.yaml": []byte("\tx")}, "app", origin1,
			"the upstream package: cannot read a.yaml: MalformedYAMLError: yaml: found character that cannot start any token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			files, err := pkgupdate.Clone(c.upstream, c.pkg, c.origin)
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant  %s", err, c.want)
			}
			if files != nil {
				t.Errorf("an error and files: %v", files)
			}
		})
	}
}
