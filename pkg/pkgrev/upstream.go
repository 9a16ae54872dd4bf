package pkgrev

import (
	"strings"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
)

// CloneUpstream returns the Kptfile's upstream and upstreamLock as Porch
// writes them into a package cloned from a revision of a registered
// repository (clonePackageMutation: the revision's GetLock, then kpt's
// UpdateKptfileUpstream): the repository's URL with ".git" added when it
// lacks it, the package's path relative to its Repository's directory
// (`directory: app`), the ref's short name (`ref: app/v2` for a tag, the
// branch's name for its head) and, in the lock, the commit. No update
// strategy is written.
func CloneUpstream(repo Repository, rev *Revision) (kptfile.Upstream, kptfile.UpstreamLock) {
	url := repo.URL
	if !strings.HasSuffix(url, ".git") {
		url += ".git"
	}
	dir := strings.TrimPrefix(rev.Package, "/")
	ref := ShortRef(rev.Ref)
	return kptfile.Upstream{Type: kptfile.OriginGit, Git: &kptfile.Git{Repo: url, Directory: dir, Ref: ref}},
		kptfile.UpstreamLock{Type: kptfile.OriginGit, Git: &kptfile.GitLock{Repo: url, Directory: dir, Ref: ref, Commit: rev.Commit}}
}
