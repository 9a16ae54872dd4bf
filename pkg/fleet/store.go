package fleet

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Store is where downstream packages live: <repo>/<package> folders of the
// output. Its methods are called from several goroutines at once, never
// twice at once for one package. A package's folder may hold more than the
// package: what the Store did not read (a .git folder, say), and other
// packages (a copy, another variant's); Write and Delete touch only the
// files they are given.
type Store interface {
	// Packages lists the packages there are (folders holding a Kptfile with
	// none above them) with their root Kptfile.
	Packages() ([]Stored, error)
	// Read returns the files below a package's folder (subpackages and
	// packages inside it included), or nil when there is no such folder.
	Read(path string) (kptpkg.Files, error)
	// Write makes the folder at path hold files where it held old (files
	// of what Read gave; nil for none), all or nothing: only files whose
	// bytes differ from old's are written, only files of old that files
	// lacks are removed (with the folders that leaves empty); anything
	// else there stays, and a file there that old lacks is not replaced
	// (an error). It reports whether it changed anything.
	Write(path string, old, files kptpkg.Files) (bool, error)
	// Delete removes the given files of the package at path, then the
	// folders that leaves empty, all or nothing; anything else stays.
	Delete(path string, files kptpkg.Files) error
}

// Stored is a package found in the Store.
type Stored struct {
	Path    string
	Kptfile []byte
}

// ownership is what a package's Kptfile says of who owns it and what it was
// rendered from.
type ownership struct {
	owner, set, policy, rendered, inputs string
	// downstream is where the owner wrote it ("" from kptkit before it
	// recorded that).
	downstream string
}

func ownershipOf(kf []byte) (ownership, error) {
	n, err := kptfile.Parse(kptapi.FileName, kf)
	if err != nil {
		return ownership{}, err
	}
	a := n.GetAnnotations()
	return ownership{
		owner:    a[v1alpha1.AnnotationOwner],
		set:      a[v1alpha1.AnnotationVariantSet],
		policy:   a[v1alpha1.AnnotationDeletionPolicy],
		rendered: a[v1alpha1.AnnotationRendered],
		inputs:   a[v1alpha1.AnnotationInputs],

		downstream: a[v1alpha1.AnnotationDownstream],
	}, nil
}

// ownershipAnnotations are the annotations that make a package a variant's.
var ownershipAnnotations = []string{v1alpha1.AnnotationOwner, v1alpha1.AnnotationDownstream, v1alpha1.AnnotationVariantSet,
	v1alpha1.AnnotationDeletionPolicy, v1alpha1.AnnotationRendered, v1alpha1.AnnotationInputs}

// annotate sets an annotation ("" removes it) the way kptkit writes new
// strings: plain, quoted only where YAML would misread them.
func annotate(n *yaml.RNode, key, value string) error {
	p := fieldpath.Path{"metadata", "annotations", key}
	if value == "" {
		return fieldpath.Remove(n, p)
	}
	return fieldpath.SetString(n, p, value)
}
