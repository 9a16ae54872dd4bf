package gittest

import (
	"strings"
	"testing"
)

// Porch's signature, the committer (and here the author) of its commits.
const (
	PorchName  = "Package Orchestration Service"
	PorchEmail = "porch@kpt.dev"
)

// PorchRepo is a deployment repository laid out as Porch's git adapter lays
// one out for a Repository named "deploy" with directory "clusters/edge1",
// written with git's plumbing; Commits names its commits.
//
//	main          c0 README (Initial commit: Creating main branch)
//	              a1 approval of clusters/edge1/app/1 (parents c0, d2)
//	              a2 approval of clusters/edge1/team/db/1 (parents a1, b2)
//	              a3 approval of clusters/edge1/team/db/2 (parents a2, b4)
//	tags          clusters/edge1/app/v1 → a1, clusters/edge1/team/db/v1 → a2
//	              (db/v2 was deleted), clusters/edge2/app/v1 (outside the
//	              directory), v1.0 (a release tag)
//	drafts/clusters/edge1/app/packagevariant-2        → e2 (edit of v1)
//	proposed/clusters/edge1/team/db/packagevariant-3  → p2
//	deletionProposed/clusters/edge1/app/v1            → a1
type PorchRepo struct {
	*Plumb
	Commits map[string]string
}

// Package files of the fixture.
var (
	AppV1 = map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: app/v1\nupstreamLock:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: app/v1\n    commit: 5e0d2a9c1b7f3e4d6a8b0c2e4f6a8b0c2d4e6f80\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: \"1\"\n",
	}
	AppEdited = map[string]string{
		"Kptfile": AppV1["Kptfile"],
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: \"3\"\n",
	}
	DBV1 = map[string]string{
		"Kptfile":           "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\ninfo:\n  readinessGates:\n  - conditionType: Ready\nstatus:\n  conditions:\n  - type: Ready\n    status: \"True\"\n",
		"manifests/db.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\n",
	}
	DBV2 = map[string]string{
		"Kptfile":           DBV1["Kptfile"],
		"manifests/db.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\n  labels:\n    tier: data\n",
	}
	DBNotReady = map[string]string{
		"Kptfile":           "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\ninfo:\n  readinessGates:\n  - conditionType: Ready\n",
		"manifests/db.yaml": DBV2["manifests/db.yaml"],
	}
)

// With returns the files of a tree with the package at dir replaced by pkg
// (nil: removed).
func With(tree map[string]string, dir string, pkg map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range tree {
		if !strings.HasPrefix(p, dir+"/") {
			out[p] = c
		}
	}
	for p, c := range pkg {
		out[dir+"/"+p] = c
	}
	return out
}

// Task annotations of the fixture, as Porch writes them.
func draftMsg(first, pkg, ws, task string) string {
	return first + "\n\n\nkpt:{\"package\":\"" + pkg + "\",\"workspaceName\":\"" + ws + "\",\"revision\":\"0\",\"task\":" + task + "}\n"
}

func approveMsg(pkg, ws, rev string) string {
	return "Approving package revision " + pkg + "/" + rev + "\n\nkpt:{\"package\":\"" + pkg + "\",\"workspaceName\":\"" + ws + "\",\"revision\":\"" + rev + "\"}\n"
}

const (
	render = `{"type":"render"}`
	app    = "clusters/edge1/app"
	db     = "clusters/edge1/team/db"
)

// NewPorchRepo builds the fixture.
func NewPorchRepo(t testing.TB) *PorchRepo {
	t.Helper()
	r := &PorchRepo{Plumb: NewPlumb(t), Commits: map[string]string{}}
	c := r.Commits
	commit := func(name string, files map[string]string, msg string, parents ...string) map[string]string {
		c[name] = r.Commit(files, msg, PorchName, PorchEmail, parents...)
		return files
	}
	root := commit("c0", map[string]string{"README.md": "Created by porch"}, "Initial commit: Creating main branch")
	withApp := With(root, app, AppV1)
	commit("d1", withApp, draftMsg("Creating new revision by cloning", app, "packagevariant-1", `{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.app.v1"}}}}`), c["c0"])
	commit("d2", withApp, draftMsg("Rendering package", app, "packagevariant-1", render), c["d1"])
	commit("a1", withApp, approveMsg(app, "packagevariant-1", "1"), c["c0"], c["d2"])
	withDB1 := With(withApp, db, DBV1)
	commit("b1", withDB1, draftMsg("Creating new revision by cloning", db, "packagevariant-1", `{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.db.v1"}}}}`), c["a1"])
	commit("b2", withDB1, draftMsg("Rendering package", db, "packagevariant-1", render), c["b1"])
	commit("a2", withDB1, approveMsg(db, "packagevariant-1", "1"), c["a1"], c["b2"])
	withDB2 := With(withDB1, db, DBV2)
	commit("b3", withDB2, draftMsg("Creating new revision by copying previous revision", db, "packagevariant-2", `{"type":"edit","edit":{"sourceRef":{"name":"deploy.team.db.packagevariant-1"}}}`), c["a2"])
	commit("b4", withDB2, draftMsg("Rendering package", db, "packagevariant-2", render), c["b3"])
	commit("a3", withDB2, approveMsg(db, "packagevariant-2", "2"), c["a2"], c["b4"])
	edited := With(withDB2, app, AppEdited)
	commit("e1", edited, draftMsg("Creating new revision by copying previous revision", app, "packagevariant-2", `{"type":"edit","edit":{"sourceRef":{"name":"deploy.app.packagevariant-1"}}}`), c["a3"])
	commit("e2", edited, draftMsg("Rendering package", app, "packagevariant-2", render), c["e1"])
	proposed := With(withDB2, db, DBNotReady)
	commit("p1", proposed, draftMsg("Creating new revision by copying previous revision", db, "packagevariant-3", `{"type":"edit","edit":{"sourceRef":{"name":"deploy.team.db.packagevariant-2"}}}`), c["a3"])
	commit("p2", proposed, draftMsg("Rendering package", db, "packagevariant-3", render), c["p1"])
	commit("x1", With(root, "clusters/edge2/app", AppV1), "an outside package", c["c0"])

	r.Ref("refs/heads/main", c["a3"])
	r.Ref("refs/tags/"+app+"/v1", c["a1"])
	r.Ref("refs/tags/"+db+"/v1", c["a2"])
	r.Ref("refs/tags/clusters/edge2/app/v1", c["x1"])
	r.Ref("refs/tags/v1.0", c["a1"])
	r.Ref("refs/heads/drafts/"+app+"/packagevariant-2", c["e2"])
	r.Ref("refs/heads/proposed/"+db+"/packagevariant-3", c["p2"])
	r.Ref("refs/heads/deletionProposed/"+app+"/v1", c["a1"])
	return r
}
