package pkgrev

import (
	"strconv"
	"strings"
)

// Where Porch keeps package revisions in a repository
// (pkg/externalrepo/git/ref.go).
const (
	HeadsPrefix = "refs/heads/"
	TagsPrefix  = "refs/tags/"

	draftsPrefix           = "drafts/"
	proposedPrefix         = "proposed/"
	deletionProposedPrefix = "deletionProposed/"
)

// RefKind is what a ref is to Porch.
type RefKind int

// Kinds of refs.
const (
	RefOther            RefKind = iota // not Porch's
	RefBranch                          // the Repository's branch: its packages' head revisions
	RefDraft                           // drafts/<path>/<workspace>
	RefProposed                        // proposed/<path>/<workspace>
	RefDeletionProposed                // deletionProposed/<path>/v<N> (or /<workspace>)
	RefTag                             // <path>/v<N>: a published revision
)

// ParsedRef is a ref read as Porch reads it.
type ParsedRef struct {
	Kind RefKind
	// Path is the package's full path (with the directory); "" for the
	// branch.
	Path string
	// Version is the ref's last segment: the workspace of a draft or
	// proposal, the revision ("v3") of a tag or deletion proposal.
	Version string
}

// ParseRef reads a full ref name (refs/heads/..., refs/tags/...) given the
// Repository's branch. Refs that are not Porch's are RefOther: a tag without
// a slash (a release tag), a draft or proposal ref without a workspace, and
// everything outside refs/heads/ and refs/tags/.
func ParseRef(name, branch string) ParsedRef {
	if name == HeadsPrefix+branch {
		return ParsedRef{Kind: RefBranch}
	}
	if short, ok := strings.CutPrefix(name, TagsPrefix); ok {
		return split(RefTag, short)
	}
	short, ok := strings.CutPrefix(name, HeadsPrefix)
	if !ok {
		return ParsedRef{}
	}
	for _, k := range []struct {
		prefix string
		kind   RefKind
	}{{draftsPrefix, RefDraft}, {proposedPrefix, RefProposed}, {deletionProposedPrefix, RefDeletionProposed}} {
		if rest, ok := strings.CutPrefix(short, k.prefix); ok {
			return split(k.kind, rest)
		}
	}
	return ParsedRef{}
}

// split cuts <path>/<version> at its last slash; without one (or with an
// empty part) the ref is not Porch's.
func split(kind RefKind, s string) ParsedRef {
	i := strings.LastIndex(s, "/")
	if i <= 0 || i == len(s)-1 {
		return ParsedRef{}
	}
	return ParsedRef{Kind: kind, Path: s[:i], Version: s[i+1:]}
}

// BranchRef is the full name of a branch.
func BranchRef(branch string) string { return HeadsPrefix + branch }

// DraftRef is the branch of a draft: drafts/<path>/<workspace>.
func DraftRef(full, workspace string) string {
	return HeadsPrefix + draftsPrefix + full + "/" + workspace
}

// ProposedRef is the branch of a proposal: proposed/<path>/<workspace>.
func ProposedRef(full, workspace string) string {
	return HeadsPrefix + proposedPrefix + full + "/" + workspace
}

// version is the last segment of a published revision's tag and deletion
// proposal: v<N>, or the workspace when it has no revision number (Porch's
// createFinalTagNameInLocal and createDeletionProposedName).
func version(revision int, workspace string) string {
	if revision > 0 {
		return "v" + strconv.Itoa(revision)
	}
	return workspace
}

// TagRef is the tag of a published revision: <path>/v<N>.
func TagRef(full string, revision int, workspace string) string {
	return TagsPrefix + full + "/" + version(revision, workspace)
}

// DeletionProposedRef is the branch that marks a published revision as
// proposed for deletion: deletionProposed/<path>/v<N> (the branch's head
// revision: deletionProposed/<path>/<branch>).
func DeletionProposedRef(full string, revision int, workspace string) string {
	return HeadsPrefix + deletionProposedPrefix + full + "/" + version(revision, workspace)
}

// ShortRef is a ref's name as a Kptfile's upstream names it (go-git's
// ReferenceName.Short): refs/heads/ and refs/tags/ left out.
func ShortRef(name string) string {
	for _, p := range []string{HeadsPrefix, TagsPrefix, "refs/remotes/"} {
		if s, ok := strings.CutPrefix(name, p); ok {
			return s
		}
	}
	return name
}
