package pkgrev

import (
	"errors"
	"fmt"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// Repository is a git Repository registered with Porch, as the model reads
// it: where its package revisions live and who signs the commits made there.
type Repository struct {
	Name, Namespace string
	// URL is spec.git.repo, as the Repository names it.
	URL string
	// Branch is spec.git.branch (default main).
	Branch string
	// Directory is spec.git.directory without slashes around it.
	Directory    string
	CreateBranch bool
	Deployment   bool
	Author       string
	Email        string
	// File is the file the Repository object was read from ("" when not
	// known): a relative URL is a path from its folder.
	File string
}

// RepositoryOf reads a Repository object; a Repository that is not git, or
// names no repository, is an error in Porch's words (GitRepoFactory).
func RepositoryOf(r porch.Repository) (Repository, error) {
	g := r.Spec.Git
	switch {
	case g == nil:
		return Repository{}, errors.New("git property is required")
	case g.Repo == "":
		return Repository{}, errors.New("git.repo property is required")
	}
	ns := r.Metadata.Namespace
	if ns == "" {
		ns = meta.DefaultNamespace
	}
	branch := g.Branch
	if branch == "" {
		branch = porch.DefaultBranch
	}
	return Repository{
		Name: r.Metadata.Name, Namespace: ns, URL: g.Repo, Branch: branch,
		Directory: Directory(g.Directory), CreateBranch: g.CreateBranch,
		Deployment: r.Spec.Deployment, Author: g.Author, Email: g.Email,
	}, nil
}

// Repositories returns the git Repositories of a namespace among a
// cluster's objects (files names the file of each, for messages), sorted by
// name. Repositories of other types (oci) are left out; a git Repository
// that does not read is an error naming it and its file, all of them at once.
func Repositories(objects []*yaml.RNode, files []string, namespace string) ([]Repository, error) {
	var out []Repository
	var errs []error
	for i, n := range objects {
		h := resourcelist.HeaderOf(n)
		if !h.Is(porch.TypeRepository.APIVersion, porch.TypeRepository.Kind) || scope(h.Namespace) != namespace {
			continue
		}
		where := fmt.Sprintf("cluster object %d", i)
		if i < len(files) {
			where = files[i]
		}
		var r porch.Repository
		if de := decode.Into(n.YNode(), &r, decode.Options{}, ""); len(de) > 0 {
			for _, e := range de {
				errs = append(errs, fmt.Errorf("%s: Repository %s: %w", where, h.Name, e))
			}
			continue
		}
		if r.Spec.Type != "" && r.Spec.Type != "git" {
			continue
		}
		repo, err := RepositoryOf(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: Repository %s: %w", where, h.Name, err))
			continue
		}
		if i < len(files) {
			repo.File = files[i]
		}
		out = append(out, repo)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errors.Join(errs...)
}

// scope is the namespace of an object that may name none.
func scope(ns string) string {
	if ns == "" {
		return meta.DefaultNamespace
	}
	return ns
}
