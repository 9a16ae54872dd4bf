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
	return Lineage(repo, rev.Path, ShortRef(rev.Ref), rev.Commit)
}

// Lineage returns the upstream and upstreamLock Porch writes for a package
// cloned from the package at the full path full of a repository, at the ref
// (its short name) and commit (see CloneUpstream).
func Lineage(repo Repository, full, ref, commit string) (kptfile.Upstream, kptfile.UpstreamLock) {
	url := repo.URL
	if !strings.HasSuffix(url, ".git") {
		url += ".git"
	}
	dir := Relative(strings.Trim(full, "/"), repo.Directory)
	return kptfile.Upstream{Type: kptfile.OriginGit, Git: &kptfile.Git{Repo: url, Directory: dir, Ref: ref}},
		kptfile.UpstreamLock{Type: kptfile.OriginGit, Git: &kptfile.GitLock{Repo: url, Directory: dir, Ref: ref, Commit: commit}}
}

// LockedPath returns the full path of the package a Porch-written upstream
// lock of the repository names (its directory is relative to the
// Repository's), and false when the lock names another repository (its URL
// with or without ".git") or is not Porch's (kpt's directory starts with a
// slash).
func LockedPath(repo Repository, lockRepo, lockDir string) (string, bool) {
	if strings.HasPrefix(lockDir, "/") || strings.TrimSuffix(lockRepo, ".git") != strings.TrimSuffix(repo.URL, ".git") {
		return "", false
	}
	return FullPath(repo.Directory, lockDir), true
}
