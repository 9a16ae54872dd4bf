// Package pkgrev models Porch's package revisions as its git adapter keeps
// them in a repository, without a server: refs and commits go in, package
// revisions (names, lifecycles, revision numbers, the latest) come out; a
// lifecycle verb (propose, approve, reject, propose-delete, del, push) goes
// in, and the Change to make comes out — at most one commit to write, then
// the ref moves, each checked against the value read.
//
// The rules are Porch v1.5.8's (pkg/externalrepo/git, pkg/cache/crcache,
// pkg/registry/porch, porchctl's rpkg commands): refs drafts/<path>/<ws>,
// proposed/<path>/<ws>, deletionProposed/<path>/v<N> and tags <path>/v<N>,
// where <path> is the package's path with the Repository's directory; names
// <repo>.<path relative to the directory, / as .>.<workspace>; commit
// messages with a `kpt:{json}` annotation. The package is pure: the git
// objects come in through Objects, the clock as a time, and the writing is
// done by the caller (internal/gitrepo).
package pkgrev
