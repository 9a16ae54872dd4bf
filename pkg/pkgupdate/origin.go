package pkgupdate

import (
	"errors"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Origin is where a downstream package comes from, as its Kptfile records it.
type Origin struct {
	// Repo is the upstream git repository as the Repository names it (URL or path).
	Repo string
	// Directory is the package's folder in that repository, as kpt writes it.
	Directory string
	// Ref is the ref asked for: a tag such as "app/v1", or a branch.
	Ref string
	// Commit is the resolved commit; "" for a folder upstream (no git): then
	// no upstreamLock is written.
	Commit string
	// LockRef is the ref upstreamLock records when it is not Ref: kpt looks
	// `v1` up as the tag `pkg/v1` for a package in folder `pkg`, and records
	// the tag it found. "" records Ref.
	LockRef string
}

// check refuses an origin kpt would refuse, in kpt's words.
func (o Origin) check() error {
	switch {
	case o.Repo == "":
		return errors.New("must specify repo")
	case o.Ref == "":
		return errors.New("must specify ref")
	case o.Directory == "":
		return errors.New("must specify directory")
	}
	return nil
}

// upstream is the Kptfile's upstream for the origin.
func (o Origin) upstream() kptapi.Upstream {
	return kptapi.Upstream{
		Type:           kptapi.OriginGit,
		Git:            &kptapi.Git{Repo: o.Repo, Directory: o.Directory, Ref: o.Ref},
		UpdateStrategy: kptapi.StrategyResourceMerge,
	}
}

// lock is the Kptfile's upstreamLock for the origin; nil without a commit.
func (o Origin) lock() *kptapi.UpstreamLock {
	if o.Commit == "" {
		return nil
	}
	ref := o.LockRef
	if ref == "" {
		ref = o.Ref
	}
	return &kptapi.UpstreamLock{
		Type: kptapi.OriginGit,
		Git:  &kptapi.GitLock{Repo: o.Repo, Directory: o.Directory, Ref: ref, Commit: o.Commit},
	}
}

// Policy is what Update does with a field both sides changed differently.
type Policy int

const (
	// KeepLocal leaves the downstream package as it was and returns the
	// conflicts.
	KeepLocal Policy = iota
	// TakeUpstream merges as kpt does: the upstream's value wins. The
	// conflicts are returned too, for the record.
	TakeUpstream
)

// Lock returns the revision the package was last cloned or updated at, as an
// Origin (Ref is the ref the lock records), and false when its Kptfile has
// no git upstreamLock.
func Lock(files kptpkg.Files) (Origin, bool, error) {
	kf, err := kptfile.Root(files)
	if err != nil || kf == nil {
		return Origin{}, false, err
	}
	return LockOf(kf)
}

// LockOf is Lock of a Kptfile read already (kptfile.Read).
func LockOf(kf *yaml.RNode) (Origin, bool, error) {
	l, err := kptfile.LineageOf(kf)
	if err != nil || l.Lock == nil || l.Lock.Git == nil {
		return Origin{}, false, err
	}
	g := l.Lock.Git
	return Origin{Repo: g.Repo, Directory: g.Directory, Ref: g.Ref, Commit: g.Commit}, true, nil
}
