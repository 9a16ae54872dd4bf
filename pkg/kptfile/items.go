package kptfile

import (
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// RootItem returns the root Kptfile among a ResourceList's items (at path
// Kptfile, or without a path as kustomize passes items): nil when there is
// none, and an error result when two or more could be it.
func RootItem(rl *resourcelist.ResourceList) (*resourcelist.Item, []result.Result) {
	kfs := rl.Select(resourcelist.Header.IsRootKptfile)
	switch len(kfs) {
	case 0:
		return nil, nil
	case 1:
		return kfs[0], nil
	}
	return nil, []result.Result{kfs[1].Errorf("", "%d Kptfiles could be the package root's (%s and %s): keep one",
		len(kfs), kfs[0].Header().Where(), kfs[1].Header().Where())}
}
