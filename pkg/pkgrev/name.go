package pkgrev

import (
	"crypto/sha1"
	"encoding/hex"
	"path"
	"strconv"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

// Name returns a PackageRevision's name from its repository, its package path
// relative to the repository's directory and its workspace:
// <repo>.<path with / as .>.<workspace>, or "" when any of them is empty
// (Porch's ComposePkgRevObjName, pkg/util/util.go).
func Name(repo, pkg, workspace string) string {
	if repo == "" || pkg == "" || workspace == "" {
		return ""
	}
	dotted := strings.Trim(strings.ReplaceAll(path.Clean(pkg), "/", "."), ".")
	return repo + "." + dotted + "." + workspace
}

// RepositoryName returns the repository part of a PackageRevision's name: the
// text before its first dot (a repository's name is a DNS label, without
// dots, as Porch reads it in PkgRevK8sName2Key).
func RepositoryName(name string) string {
	repo, _, _ := strings.Cut(name, ".")
	return repo
}

// Directory returns a Repository's spec.git.directory as Porch keeps it: no
// slashes around it, "" for the root.
func Directory(dir string) string { return strings.Trim(dir, "/") }

// FullPath returns a package's path in the repository from the directory and
// the path relative to it: what refs, tags and annotations name.
func FullPath(dir, pkg string) string { return strings.Trim(path.Join(dir, pkg), "/") }

// InDirectory reports whether a package's full path lies in the directory:
// the directory itself or below it (Porch's packageInDirectory,
// pkg/externalrepo/git/dir.go).
func InDirectory(full, dir string) bool {
	if dir == "" {
		return true
	}
	rest, ok := strings.CutPrefix(full, dir)
	return ok && (rest == "" || rest[0] == '/')
}

// Relative returns a package's path relative to the directory, from its full
// path: what the PackageRevision's name and spec.packageName use.
func Relative(full, dir string) string {
	return strings.Trim(strings.TrimPrefix(full, dir), "/")
}

// ParseRevision reads a revision as Porch does (Revision2Int,
// pkg/repository/util.go): an optional "v", then a number; -1 for anything
// else.
func ParseRevision(s string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "v"))
	if err != nil {
		return -1
	}
	return n
}

// uidSpace is the UUID namespace Porch derives its objects' uids in.
var uidSpace = [16]byte{0xaa, 0xc7, 0x1d, 0x91, 0x5c, 0x67, 0x45, 0x6f, 0x8f, 0xd2, 0x90, 0x2e, 0xf6, 0xda, 0x82, 0x0e}

// UID returns the uid Porch gives a PackageRevision (GenerateUid,
// pkg/util/util.go): a version 5 UUID of its namespace and name.
func UID(namespace, name string) string {
	h := sha1.New()
	h.Write(uidSpace[:])
	h.Write([]byte("packagerevision:" + strings.ToLower(porch.V1alpha1) + "/" + strings.ToLower(namespace) + "/" + strings.ToLower(name)))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	s := hex.EncodeToString(u)
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}
