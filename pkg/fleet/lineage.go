package fleet

import (
	"errors"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// clone returns a new downstream package from an upstream revision, named
// name: its root Kptfile records where it came from. (Interim: pkg/pkgupdate
// takes this over with kpt pkg get's exact output.)
func clone(up Upstream, name string) (kptpkg.Files, error) {
	return editKptfile(up.Files, func(kf *yaml.RNode) error {
		if err := kf.PipeE(yaml.SetK8sName(name)); err != nil {
			return err
		}
		if up.Origin.Commit == "" {
			return nil
		}
		git := func(withCommit bool) *yaml.RNode {
			g := yaml.NewMapRNode(&map[string]string{"repo": up.Origin.Repo, "directory": up.Origin.Directory, "ref": up.Origin.Ref})
			if withCommit {
				_ = g.PipeE(yaml.SetField("commit", yaml.NewStringRNode(up.Origin.Commit)))
			}
			return g
		}
		u := yaml.NewMapRNode(&map[string]string{"type": "git"})
		_ = u.PipeE(yaml.SetField("git", git(false)))
		_ = u.PipeE(yaml.SetField("updateStrategy", yaml.NewStringRNode("resource-merge")))
		l := yaml.NewMapRNode(&map[string]string{"type": "git"})
		_ = l.PipeE(yaml.SetField("git", git(true)))
		for _, f := range []yaml.Filter{yaml.SetField("upstream", u), yaml.SetField("upstreamLock", l)} {
			if err := kf.PipeE(f); err != nil {
				return err
			}
		}
		kptpkg.PlaceField(kf.YNode(), "upstream")
		kptpkg.PlaceField(kf.YNode(), "upstreamLock")
		return nil
	})
}

// lockOf reads a downstream's upstreamLock: where its upstream was when it
// was last cloned or updated; false when it has none.
func lockOf(files kptpkg.Files) (Origin, bool, error) {
	kf, err := rootKptfile(files[kptfile.FileName])
	if err != nil {
		return Origin{}, false, err
	}
	g := kf.Field("upstreamLock")
	if g == nil {
		return Origin{}, false, nil
	}
	get := func(f string) string {
		n, _ := g.Value.Pipe(yaml.Lookup("git", f))
		if n == nil {
			return ""
		}
		return n.YNode().Value
	}
	o := Origin{Repo: get("repo"), Directory: get("directory"), Ref: get("ref"), Commit: get("commit")}
	return o, o.Commit != "", nil
}

// errNoUpdate: updates from a moved upstream come with pkg/pkgupdate.
var errNoUpdate = errors.New("updating a package from a moved upstream is not available yet")

// update merges a new upstream into a downstream (interim: see clone).
func update(_, _, _ kptpkg.Files, _ Origin, _ bool) (kptpkg.Files, []string, error) {
	return nil, nil, errNoUpdate
}
