// Package kptfile is a kpt package's Kptfile as kpt reads and writes it:
// found among a package's files (Root) or a ResourceList's items
// (RootItem), read and checked as kpt checks one (Read, Check, in kpt's
// words) or read whatever its type (Parse), edited (Edit), its lineage — upstream and upstreamLock — read
// and set (LineageOf, SetLineage), and the fields an edit adds placed
// where kpt writes them (Order, PlaceField). The names and types are
// pkg/api/kptfile's.
package kptfile

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Root reads the root Kptfile of a package's files as kpt reads it
// (Read); nil, and no error, when the package has none.
func Root(files kptpkg.Files) (*yaml.RNode, error) {
	b, ok := files[kptapi.FileName]
	if !ok {
		return nil, nil
	}
	return Read(kptapi.FileName, b)
}

// Read reads the Kptfile at file (its path in the package) from its bytes,
// as kpt reads one: its item, annotated with its path as kptpkg.Items
// annotates items, or the error kpt would refuse it with (Documents). A
// file that does not parse is kptpkg.Items' error.
func Read(file string, b []byte) (*yaml.RNode, error) {
	docs, err := kptpkg.Items(file, b)
	if err != nil {
		return nil, err
	}
	return Documents(file, docs)
}

// Parse reads the Kptfile at file from its bytes as Read does, but checks
// only that it is one document: for what is read or edited whatever the
// Kptfile's type (its annotations, a field an edit sets).
func Parse(file string, b []byte) (*yaml.RNode, error) {
	docs, err := kptpkg.Items(file, b)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, Error(file, fmt.Errorf("it holds %d documents: a Kptfile is one", len(docs)))
	}
	return docs[0], nil
}

// Documents returns the Kptfile the documents of the file at file are, or
// the error kpt would refuse it with, naming the file: not one document,
// not a kpt.dev/v1 Kptfile (Check), not a mapping, an upstream or
// upstreamLock of the wrong shape.
func Documents(file string, docs []*yaml.RNode) (*yaml.RNode, error) {
	if len(docs) != 1 {
		return nil, Error(file, fmt.Errorf("it holds %d documents: a Kptfile is one", len(docs)))
	}
	kf := docs[0]
	if err := Check(kf); err != nil {
		return nil, Error(file, err)
	}
	if kf.YNode().Kind != yaml.MappingNode {
		return nil, Error(file, errors.New("it is not a mapping"))
	}
	if _, err := LineageOf(kf); err != nil {
		return nil, Error(file, err)
	}
	return kf, nil
}

// Error is kpt's error for a Kptfile it cannot read: `error reading Kptfile
// at "<file>": <why>`.
func Error(file string, err error) error {
	return fmt.Errorf("error reading Kptfile at %q: %w", file, err)
}

// deprecated are the Kptfile versions kpt names as old, not unknown.
var deprecated = []string{"v1alpha1", "v1alpha2"}

// Check checks a Kptfile's type as kpt does before it reads one, in kpt's
// words: kpt.dev/v1 Kptfile; kpt.dev/v1alpha1 and v1alpha2 are old
// versions, any other type unknown (named as Kubernetes names a
// GroupVersionKind, "/v1, Kind=Kptfile" for no group).
func Check(kf *yaml.RNode) error {
	api, kind := kf.GetApiVersion(), kf.GetKind()
	if api == kptapi.APIVersion && kind == kptapi.Kind {
		return nil
	}
	group, version, err := groupVersion(api)
	switch {
	case err != nil:
		return err
	case group == kptapi.Group && kind == kptapi.Kind && (version == deprecated[0] || version == deprecated[1]):
		return fmt.Errorf("old resource version %q found in Kptfile", version)
	}
	return fmt.Errorf("unknown resource type %q found in Kptfile", group+"/"+version+", Kind="+kind)
}

// groupVersion splits an apiVersion as Kubernetes' ParseGroupVersion does:
// "" and "/" are no group and no version, "v1" a version of no group.
func groupVersion(api string) (group, version string, err error) {
	switch {
	case api == "" || api == "/":
		return "", "", nil
	case strings.Count(api, "/") > 1:
		return "", "", fmt.Errorf("unexpected GroupVersion string: %s", api)
	}
	if g, v, ok := strings.Cut(api, "/"); ok {
		return g, v, nil
	}
	return "", api, nil
}

// Edit returns the files with the root Kptfile (Parse: whatever its type,
// which an edit keeps) changed by edit and written anew (kptpkg.Encode);
// the other files are shared. A package without a Kptfile is an error.
func Edit(files kptpkg.Files, edit func(kf *yaml.RNode) error) (kptpkg.Files, error) {
	b, ok := files[kptapi.FileName]
	if !ok {
		return nil, Error(kptapi.FileName, errors.New("the package has none"))
	}
	kf, err := Parse(kptapi.FileName, b)
	if err != nil {
		return nil, err
	}
	if err := edit(kf); err != nil {
		return nil, err
	}
	if b, err = kptpkg.Encode([]*yaml.RNode{kf}); err != nil {
		return nil, err
	}
	out := files.Clone()
	out[kptapi.FileName] = b
	return out, nil
}
