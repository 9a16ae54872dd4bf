package pkgupdate

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/decode"
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
func (o Origin) upstream() kptfile.Upstream {
	return kptfile.Upstream{
		Type:           kptfile.OriginGit,
		Git:            &kptfile.Git{Repo: o.Repo, Directory: o.Directory, Ref: o.Ref},
		UpdateStrategy: kptfile.StrategyResourceMerge,
	}
}

// lock is the Kptfile's upstreamLock for the origin; nil without a commit.
func (o Origin) lock() *kptfile.UpstreamLock {
	if o.Commit == "" {
		return nil
	}
	ref := o.LockRef
	if ref == "" {
		ref = o.Ref
	}
	return &kptfile.UpstreamLock{
		Type: kptfile.OriginGit,
		Git:  &kptfile.GitLock{Repo: o.Repo, Directory: o.Directory, Ref: ref, Commit: o.Commit},
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

// Lineage is what a package's root Kptfile records of where the package
// comes from: its upstream and the revision it was last cloned or updated
// at. Either may be nil.
type Lineage struct {
	Upstream *kptfile.Upstream
	Lock     *kptfile.UpstreamLock
}

// ReadLineage reads the lineage of the package: its root Kptfile's upstream
// and upstreamLock. A package without a Kptfile has none.
func ReadLineage(files kptpkg.Files) (Lineage, error) {
	kf, err := rootKptfile(files)
	if err != nil || kf == nil {
		return Lineage{}, err
	}
	return lineageOf(kf, kptfile.FileName)
}

// Lock returns the revision the package was last cloned or updated at, as an
// Origin (Ref is the ref the lock records), and false when its Kptfile has
// no git upstreamLock.
func Lock(files kptpkg.Files) (Origin, bool, error) {
	l, err := ReadLineage(files)
	if err != nil || l.Lock == nil || l.Lock.Git == nil {
		return Origin{}, false, err
	}
	g := l.Lock.Git
	return Origin{Repo: g.Repo, Directory: g.Directory, Ref: g.Ref, Commit: g.Commit}, true, nil
}

// rootKptfile reads the root Kptfile of files; nil when there is none.
func rootKptfile(files kptpkg.Files) (*yaml.RNode, error) {
	b, ok := files[kptfile.FileName]
	if !ok {
		return nil, nil
	}
	items, err := kptpkg.Items(kptfile.FileName, b)
	if err != nil {
		return nil, kptfileError(kptfile.FileName, err)
	}
	if err := checkKptfile(kptfile.FileName, items); err != nil {
		return nil, err
	}
	return items[0], nil
}

// checkKptfile refuses a Kptfile kpt would not read: not one document, not a
// kpt.dev/v1 Kptfile, upstream fields of the wrong shape.
func checkKptfile(file string, items []*yaml.RNode) error {
	if len(items) != 1 {
		return kptfileError(file, fmt.Errorf("it holds %d documents: a Kptfile is one", len(items)))
	}
	kf := items[0]
	if kf.GetApiVersion() != kptfile.APIVersion || kf.GetKind() != kptfile.Kind {
		return kptfileError(file, fmt.Errorf("unknown resource type %q found in Kptfile", kf.GetApiVersion()+", Kind="+kf.GetKind()))
	}
	if kf.YNode().Kind != yaml.MappingNode {
		return kptfileError(file, errors.New("it is not a mapping"))
	}
	_, err := lineageOf(kf, file)
	return err
}

// lineageOf decodes the upstream and upstreamLock of a Kptfile.
func lineageOf(kf *yaml.RNode, file string) (Lineage, error) {
	var l Lineage
	var errs []decode.Error
	if f := kf.Field("upstream"); f != nil && !yaml.IsMissingOrNull(f.Value) {
		l.Upstream = &kptfile.Upstream{}
		errs = append(errs, decode.Into(f.Value.YNode(), l.Upstream, decode.Options{}, "upstream")...)
	}
	if f := kf.Field("upstreamLock"); f != nil && !yaml.IsMissingOrNull(f.Value) {
		l.Lock = &kptfile.UpstreamLock{}
		errs = append(errs, decode.Into(f.Value.YNode(), l.Lock, decode.Options{}, "upstreamLock")...)
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return Lineage{}, kptfileError(file, errors.New(strings.Join(msgs, "; ")))
	}
	return l, nil
}

func kptfileError(file string, err error) error {
	return fmt.Errorf("error reading Kptfile at %q: %w", file, err)
}

// encode returns v as a YAML node, as kpt's writer marshals it.
func encode(v any) (*yaml.Node, error) {
	var n yaml.Node
	err := n.Encode(v)
	return &n, err
}
