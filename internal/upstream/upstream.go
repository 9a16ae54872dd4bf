// Package upstream finds the upstream packages of a fleet's variants (a
// fleet.Source): in git repositories, read in process as Porch lays them
// out (tag <dir>/<package>/v<N> is revision N, the branch head is the main
// workspace, drafts/ and proposed/ branches other workspaces), or in a plain
// folder of packages for repositories the cluster does not describe.
package upstream

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// Source finds upstream packages. It is safe for concurrent use.
type Source struct {
	// Folder holds packages by path (each folder with a Kptfile), for
	// repositories with no git location; nil for none.
	Folder kptpkg.Files
	// FolderName names the folder in messages (--upstream's value).
	FolderName string
	// RepoMap maps remote repository URLs to local clones.
	RepoMap map[string]string

	mu    sync.Mutex
	repos map[string]*gitrepo.Repo
}

var _ fleet.Source = (*Source)(nil)

// Find returns the revision a variant asks for: from the git repository
// of repo (a relative path read from the folder of the Repository's file),
// else from the folder.
func (s *Source) Find(want fleet.Want, repo *fleet.Repository) (fleet.Upstream, error) {
	if repo != nil && repo.Spec.Git != nil && repo.Spec.Git.Repo != "" {
		return s.fromGit(want, repo)
	}
	return s.fromFolder(want)
}

// At returns a package's files at a lock's commit: its repository, as the
// lock names it, read as the Repository's file would name it (a relative
// path from that file's folder).
func (s *Source) At(o fleet.Origin, repo *fleet.Repository) (kptpkg.Files, error) {
	file := ""
	if repo != nil {
		file = repo.File
	}
	r, err := s.open(o.Repo, file)
	if err != nil {
		return nil, err
	}
	return r.Files(o.Commit, strings.Trim(o.Directory, "/"))
}

func (s *Source) fromGit(want fleet.Want, repo *fleet.Repository) (fleet.Upstream, error) {
	g := repo.Spec.Git
	r, err := s.open(g.Repo, repo.File)
	if err != nil {
		return fleet.Upstream{}, err
	}
	model, err := pkgrev.RepositoryOf(repo.Repository)
	if err != nil {
		return fleet.Upstream{}, err
	}
	full := pkgrev.FullPath(model.Directory, want.Package)
	for _, c := range candidates(want, full, model.Branch) {
		commit, err := r.Resolve(c.ref)
		if errors.Is(err, gitrepo.ErrNotFound) {
			continue
		}
		if err != nil {
			return fleet.Upstream{}, err
		}
		files, err := r.Files(commit, full)
		if errors.Is(err, gitrepo.ErrNotFound) {
			continue
		}
		if err != nil {
			return fleet.Upstream{}, err
		}
		if _, ok := files[kptfile.FileName]; !ok {
			return fleet.Upstream{}, fmt.Errorf("%s at %s of %s holds no Kptfile: it is not a package", full, c.ref, g.Repo)
		}
		workspace := c.workspace
		if want.Revision > 0 {
			workspace = pkgrev.PublishedWorkspace(r.Revisions(), commit, full, want.Revision)
		}
		return fleet.Upstream{
			Files:    files,
			Origin:   fleet.Origin{Repo: g.Repo, Directory: "/" + full, Ref: c.ref, Commit: commit},
			Key:      g.Repo + "@" + commit + ":" + full, // the URL, not where it was read: a seal stays the same on every machine
			Revision: pkgrev.Name(repo.Metadata.Name, want.Package, workspace),
		}, nil
	}
	return fleet.Upstream{}, notFound(want)
}

// candidate is a ref a revision may be on (its short name: a branch is also
// looked for as a clone's origin/<branch>) and the revision's workspace.
type candidate struct{ ref, workspace string }

// candidates are the refs the revision a variant asks for may be on, in the
// order they are tried, as Porch lays revisions out (pkgrev): revision N is
// the tag <path>/vN; the workspace main (or none) the branch's head; another
// workspace its draft, then its proposal.
func candidates(want fleet.Want, full, branch string) []candidate {
	switch {
	case want.Revision > 0:
		return []candidate{{ref: pkgrev.ShortRef(pkgrev.TagRef(full, want.Revision, ""))}}
	case want.Workspace == "" || want.Workspace == porch.DefaultBranch:
		return []candidate{{ref: branch, workspace: branch}}
	}
	return []candidate{
		{ref: pkgrev.ShortRef(pkgrev.DraftRef(full, want.Workspace)), workspace: want.Workspace},
		{ref: pkgrev.ShortRef(pkgrev.ProposedRef(full, want.Workspace)), workspace: want.Workspace},
	}
}

// notFound is Porch's text for a missing upstream revision.
func notFound(want fleet.Want) error {
	rev := want.Workspace
	if want.Revision > 0 {
		rev = fmt.Sprintf("v%d", want.Revision)
	}
	if rev == "" {
		rev = "main"
	}
	return fmt.Errorf("could not find upstream package revision '%s/%s' in repo '%s'", want.Package, rev, want.Repo)
}

// open opens a repository, named as the file names it, once for the run.
func (s *Source) open(u, file string) (*gitrepo.Repo, error) {
	local, err := gitrepo.LocalFor(u, file, s.RepoMap)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.repos[local]; r != nil {
		return r, nil
	}
	r, err := gitrepo.Open(u, local)
	if err != nil {
		return nil, err
	}
	if s.repos == nil {
		s.repos = map[string]*gitrepo.Repo{}
	}
	s.repos[local] = r
	return r, nil
}

// fromFolder finds <repo>/<package>, else <package>, in the folder.
func (s *Source) fromFolder(want fleet.Want) (fleet.Upstream, error) {
	for _, p := range []string{path.Join(want.Repo, want.Package), want.Package} {
		if _, ok := s.Folder[path.Join(p, kptfile.FileName)]; !ok {
			continue
		}
		files := s.Folder.Sub(p)
		return fleet.Upstream{Files: files, Key: "folder:" + p + ":" + digest(files)}, nil
	}
	where := "no --upstream folder was given"
	if s.Folder != nil {
		where = fmt.Sprintf("%s holds no package %s or %s", s.FolderName, path.Join(want.Repo, want.Package), want.Package)
	}
	return fleet.Upstream{}, fmt.Errorf("%s: the cluster has no git Repository %q and %s", notFound(want), want.Repo, where)
}

// digest is a folder package's part of its key: its files' paths and bytes.
func digest(files kptpkg.Files) string {
	d := kptpkg.NewDigest(kptpkg.LengthFraming)
	d.Files(files, files.Paths())
	return d.Hex()
}
