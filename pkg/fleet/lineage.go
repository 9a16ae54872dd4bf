package fleet

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

// clone returns a new downstream package of an upstream revision, named
// name: from git, as `kpt pkg get` writes it (its lineage, merge comments
// and identifiers); from a folder, which has no history to record, the
// upstream's files with the package renamed.
func clone(up Upstream, name string) (kptpkg.Files, error) {
	if up.Origin.Commit != "" {
		return pkgupdate.Clone(up.Files, name, up.Origin)
	}
	return kptfile.Edit(up.Files, func(kf *yaml.RNode) error {
		return fieldpath.SetString(kf, fieldpath.Path{"metadata", "name"}, name)
	})
}

// In git (Options.Revisions), a downstream's Kptfile records its upstream as
// Porch's clone writes it (pkgrev.Lineage: the repository's URL with .git,
// the package's path relative to the Repository's directory, no update
// strategy), not as kpt pkg get does. The package is made as in a folder —
// cloned, merged and rendered with kpt's lineage — and its lineage written
// Porch's way last, before it is sealed; a lock read back is read Porch's
// way.

// porchLineage writes the root Kptfile's lineage as Porch writes it when it
// names the variant's upstream revision as kpt's does; files are returned
// as they are otherwise (and always outside git).
func (r *runner) porchLineage(j *job, up *upstreamEntry, files kptpkg.Files) (kptpkg.Files, error) {
	o := up.up.Origin
	if r.opts.Revisions == nil || o.Commit == "" {
		return files, nil
	}
	kf, err := r.lineageOf(j, o, files)
	if err != nil {
		return nil, err
	}
	return withKptfile(files, kf), nil
}

// cloneLineage is porchLineage of an upstream's clone (a draft's task
// commit), kept for the run (r.lineages): the variants of one upstream
// revision start from one clone. A rendered package's Kptfile is its
// variant's own and is not kept.
func (r *runner) cloneLineage(j *job, up *upstreamEntry, files kptpkg.Files) (kptpkg.Files, error) {
	o := up.up.Origin
	if r.opts.Revisions == nil || o.Commit == "" {
		return files, nil
	}
	key := lineageKey{kptfile: string(files[kptapi.FileName]), origin: o, namespace: j.pv.Metadata.Namespace, upstream: j.want.Repo}
	r.mu.Lock()
	kf, ok := r.lineages[key]
	r.mu.Unlock()
	if !ok {
		var err error
		if kf, err = r.lineageOf(j, o, files); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.lineages[key] = kf
		r.mu.Unlock()
	}
	return withKptfile(files, kf), nil
}

// withKptfile returns files with the root Kptfile kf (files as they are
// for nil).
func withKptfile(files kptpkg.Files, kf []byte) kptpkg.Files {
	if kf == nil {
		return files
	}
	out := files.Clone()
	out[kptapi.FileName] = kf
	return out
}

// lineageKey is what cloneLineage's Kptfile depends on: the Kptfile as it
// was, the upstream revision, and the upstream Repository (by namespace
// and name).
type lineageKey struct {
	kptfile             string
	origin              Origin
	namespace, upstream string
}

// lineageOf returns the root Kptfile with Porch's lineage (porchLineage),
// nil when it is left as it is. The Kptfile is read once, for its lock and
// its edit, and a lineage is marshalled once for the run (r.lineageNodes).
func (r *runner) lineageOf(j *job, o Origin, files kptpkg.Files) ([]byte, error) {
	if _, ok := files[kptapi.FileName]; !ok {
		return nil, nil
	}
	edited := false
	out, err := kptfile.Edit(files, func(kf *yaml.RNode) error {
		if _, err := kptfile.Documents(kptapi.FileName, []*yaml.RNode{kf}); err != nil {
			return err
		}
		lock, ok, err := pkgupdate.LockOf(kf)
		if err != nil || !ok || lock.Repo != o.Repo || lock.Commit != o.Commit || !sameRevision(lock, o) || !strings.HasPrefix(lock.Directory, "/") {
			return err
		}
		n, err := r.marshalLineage(j, o, lock.Ref)
		if err != nil {
			return err
		}
		if err := n.Set(kf); err != nil {
			return err
		}
		kptfile.Order(kf.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
		edited = true
		return nil
	})
	if err != nil || !edited {
		return nil, err
	}
	return out[kptapi.FileName], nil
}

// lineageNodesKey is what a lineage porchLineage writes depends on: the
// upstream revision, the ref the lock records, and the upstream Repository
// (by namespace and name).
type lineageNodesKey struct {
	origin                   Origin
	ref, namespace, upstream string
}

// marshalLineage returns Porch's lineage of the upstream revision o whose
// lock records ref, marshalled once for the run.
func (r *runner) marshalLineage(j *job, o Origin, ref string) (kptfile.LineageNodes, error) {
	key := lineageNodesKey{origin: o, ref: ref, namespace: j.pv.Metadata.Namespace, upstream: j.want.Repo}
	r.mu.Lock()
	n, ok := r.lineageNodes[key]
	r.mu.Unlock()
	if ok {
		return n, nil
	}
	repo, err := r.upstreamModel(j)
	if err != nil {
		return kptfile.LineageNodes{}, err
	}
	u, l := pkgrev.Lineage(repo, o.Directory, ref, o.Commit)
	if n, err = kptfile.MarshalLineage(u, &l); err != nil {
		return kptfile.LineageNodes{}, err
	}
	r.mu.Lock()
	r.lineageNodes[key] = n
	r.mu.Unlock()
	return n, nil
}

// lockOf returns the upstream revision a downstream package records (see
// pkgupdate.Lock); in git, a lock Porch's way is read as the Origin kpt's
// way names (the Repository's URL as written, the full path).
func (r *runner) lockOf(j *job, files kptpkg.Files) (Origin, bool, error) {
	lock, ok, err := pkgupdate.Lock(files)
	if err != nil || !ok || r.opts.Revisions == nil {
		return lock, ok, err
	}
	repo, err := r.upstreamModel(j)
	if err != nil {
		return Origin{}, false, err
	}
	if full, porchs := pkgrev.LockedPath(repo, lock.Repo, lock.Directory); porchs {
		lock.Repo, lock.Directory = repo.URL, "/"+full
	}
	return lock, true, nil
}

// upstreamModel is the Repository the variant's upstream names, as the
// package revision model reads it.
func (r *runner) upstreamModel(j *job) (pkgrev.Repository, error) {
	repo := r.cluster.repository(j.pv.Metadata.Namespace, j.want.Repo)
	if repo == nil {
		return pkgrev.Repository{}, fmt.Errorf("the cluster has no Repository %q", j.want.Repo)
	}
	return pkgrev.RepositoryOf(repo.Repository)
}
