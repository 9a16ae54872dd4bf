package fleet

import (
	"fmt"
	"path"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

// Want is the upstream package revision a variant asks for.
type Want struct {
	Repo, Package string
	// Revision is a published revision (tag <package>/v<N>); 0 for none,
	// when Workspace decides.
	Revision int
	// Workspace is "" or "main" for the branch head, else a draft or
	// proposed workspace.
	Workspace string
}

// String names the revision for messages: catalog/app@v2, catalog/app@main.
func (w Want) String() string {
	switch {
	case w.Revision > 0:
		return fmt.Sprintf("%s/%s@v%d", w.Repo, w.Package, w.Revision)
	case w.Workspace != "":
		return fmt.Sprintf("%s/%s@%s", w.Repo, w.Package, w.Workspace)
	}
	return fmt.Sprintf("%s/%s@main", w.Repo, w.Package)
}

// Origin is where an upstream package revision lives, as a downstream's
// Kptfile records it (upstream and upstreamLock); Commit is "" for a folder
// upstream.
type Origin = pkgupdate.Origin

// Upstream is one revision of an upstream package.
type Upstream struct {
	Files  kptpkg.Files
	Origin Origin
	// Key identifies the content (repository, folder and commit, or a hash of
	// a folder's files): revisions with one key are read and parsed once.
	Key string
	// Revision is the PackageRevision's name (catalog.app.v2), "" for a
	// folder: what a clone task in git names.
	Revision string
}

// Source finds upstream packages: in git repositories (Porch's layout) or
// in plain folders.
type Source interface {
	// Find returns the revision a variant asks for; repo is the Repository
	// the cluster names (nil when it has none of that name).
	Find(want Want, repo *Repository) (Upstream, error)
	// At returns a package as it was at a downstream's upstreamLock, the
	// base of an update's three-way merge; repo is the Repository the
	// variant's upstream names (nil when the cluster has none).
	At(origin Origin, repo *Repository) (kptpkg.Files, error)
}

// Repository is a Repository object of the management cluster as a Source
// is given it: the object, and the file it was read from ("" when not
// known), from whose folder a relative spec.git.repo is a path. The repo
// stays as written in what is recorded of it (Origin, Upstream.Key).
type Repository struct {
	porch.Repository
	File string
}

// upstreamEntry is an upstream revision read once for the run: its files,
// its clone (with the upstream's own name) and the clone's items parsed.
type upstreamEntry struct {
	ready chan struct{}
	up    Upstream
	clone kptpkg.Files
	items []*yaml.RNode
	err   error
}

// upstream returns the entry for a want, reading and cloning it the first
// time any variant asks.
func (r *runner) upstream(namespace string, want Want, repo *Repository) *upstreamEntry {
	key := keyOf(namespace, "").namespace + " " + want.String()
	r.mu.Lock()
	e, ok := r.upstreams[key]
	if !ok {
		e = &upstreamEntry{ready: make(chan struct{})}
		r.upstreams[key] = e
	}
	r.mu.Unlock()
	if ok {
		<-e.ready
		return e
	}
	defer close(e.ready)
	e.up, e.err = r.opts.Source.Find(want, repo)
	if e.err != nil {
		return e
	}
	if e.clone, e.err = clone(e.up, path.Base(want.Package)); e.err != nil {
		e.err = fmt.Errorf("cannot clone %s: %w", want, e.err)
		return e
	}
	if e.items, e.err = e.clone.Resources("", true); e.err != nil {
		e.err = fmt.Errorf("upstream %s: %w", want, e.err)
	}
	return e
}
