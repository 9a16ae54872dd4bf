package fleet

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// Revisions is where a run in git (variants render --git) keeps the
// downstream packages: the package revisions of each downstream
// Repository's git repository, as Porch's git adapter keeps them. Its
// methods are called from several goroutines at once, never twice at once
// for one repository's Apply.
type Revisions interface {
	// Hold takes a Repository for the run (its lock), before it is read;
	// a run holds its Repositories in the order of their names, so that two
	// runs waiting for each other's cannot wait forever.
	Hold(repo pkgrev.Repository) error
	// Snapshot reads a Repository's package revisions.
	Snapshot(repo pkgrev.Repository) (*pkgrev.Snapshot, error)
	// Files returns the files of a revision's package.
	Files(repo pkgrev.Repository, rev *pkgrev.Revision) (kptpkg.Files, error)
	// Descends reports whether the commit of is ancestor or has it in its
	// history.
	Descends(repo pkgrev.Repository, of, ancestor string) (bool, error)
	// Apply makes a change to the repository (its commits, then its refs,
	// each checked against the value read, together); it returns the last
	// commit written ("" for none).
	Apply(repo pkgrev.Repository, w Write) (string, error)
	// Referrers returns, for each package revision of the Repositories
	// another names as its upstream (its clone or upgrade task), the first
	// by name of those naming it (pkgrev.Referrers).
	Referrers(repos []pkgrev.Repository) (map[string]string, error)
	// Done is called once for each Repository the run changed, after its
	// last change (to push it); an error fails what the run changed there.
	Done(repo pkgrev.Repository) error
}

// Write is a change a run makes to a Repository, and what it is for.
type Write struct {
	Change pkgrev.Change
	// Revision names the PackageRevision it writes or removes; Path is
	// <repo>/<package>.
	Revision, Path string
	// Old and New are the package's files before and after (nil: none), for
	// a diff.
	Old, New kptpkg.Files
}

// Record is what a run in git recorded of a variant's package in its
// status: the PackageRevision, and the last commit kptkit made there.
type Record struct{ Revision, Commit string }

// Records reads what a run in git recorded in its status (Report.Status as
// written), by variant (<namespace>/<name>): each PackageVariant's first
// downstreamTarget and its kptkit.dev/commit annotation. Objects that say
// nothing of it are left out.
func Records(status []*yaml.RNode) map[string]Record {
	out := map[string]Record{}
	for _, n := range status {
		if n.GetKind() != porch.KindVariant {
			continue
		}
		commit := n.GetAnnotations()[v1alpha1.AnnotationCommit]
		targets := fieldpath.Lookup(n, fieldpath.Path{"status", "downstreamTargets"})
		if commit == "" || targets == nil || targets.YNode().Kind != yaml.SequenceNode || len(targets.YNode().Content) == 0 {
			continue
		}
		name := fieldpath.Field(targets.YNode().Content[0], "name")
		if name == nil || name.Kind != yaml.ScalarNode {
			continue
		}
		out[ownerKey(n.GetNamespace(), n.GetName())] = Record{Revision: strings.TrimSpace(name.Value), Commit: commit}
	}
	return out
}

// record is what the status records of a variant in git: what this run
// wrote, else what the last run recorded of the revision it still names
// (a variant that failed keeps the last record).
func (r *runner) record(j *job) Record {
	v := j.v
	if v.wrote != "" {
		return Record{Revision: v.Revision, Commit: v.wrote}
	}
	prev, ok := r.opts.Records[j.key()]
	if ok && (v.Outcome == Failed || prev.Revision == v.Revision) {
		return prev
	}
	return Record{}
}
