package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// gitTimeout bounds each git process kptkit runs.
const gitTimeout = 2 * time.Minute

// gitProcesses counts the git processes started (for tests and
// benchmarks: a run that changes nothing starts none).
var gitProcesses atomic.Int64

// GitProcesses returns how many git processes kptkit has started.
func GitProcesses() int64 { return gitProcesses.Load() }

// Apply makes a change in the repository: its commit's objects are written
// first, then its refs move in one transaction as git makes it (moveRefs),
// so that all of them move or none, git's locks and packed refs are
// honoured, and a ref another writer moved since it was read fails the
// change. It returns the new commit ("" for none).
//
// Only refs/heads/ and refs/tags/ are written; a tag is created or deleted,
// never moved; a branch checked out in a work tree is never moved.
func (g *Repo) Apply(ctx context.Context, c pkgrev.Change) (string, error) {
	if err := checkUpdates(c.Refs); err != nil {
		return "", fmt.Errorf("cannot update %s: %w", g.URL, err)
	}
	for _, u := range c.Refs {
		if u.ToCommit && c.Commit == nil {
			return "", fmt.Errorf("cannot update %s: %s names a new commit the change does not make", g.URL, u.Name)
		}
	}
	if len(c.Refs) == 0 && c.Commit == nil {
		return "", nil
	}
	if err := g.refuseCheckedOut(ctx, c.Refs); err != nil {
		return "", err
	}
	commit, err := g.writeCommits(c.Commits())
	if err != nil {
		return "", err
	}
	if err := g.moveRefs(ctx, c.Refs, commit); err != nil {
		return "", fmt.Errorf("cannot update the refs of %s: %w", g.URL, err)
	}
	return commit, nil
}

// moveRefs moves a change's refs (those to its commit to commit) in one
// transaction: in process where git's files backend keeps them plainly
// (reftx.go), else in git's own (`git update-ref --stdin`: start,
// create/update/delete each checked against the value read, prepare,
// commit).
func (g *Repo) moveRefs(ctx context.Context, refs []pkgrev.RefUpdate, commit string) error {
	refs = slices.Clone(refs)
	for i := range refs {
		if refs[i].ToCommit {
			refs[i].New = commit
		}
	}
	if err := g.moveInProcess(refs); !errors.Is(err, errInProcess) {
		return err
	}
	var script strings.Builder
	script.WriteString("start\n")
	for _, u := range refs {
		switch {
		case u.Old == "":
			fmt.Fprintf(&script, "create %s %s\n", u.Name, u.New)
		case u.New == "":
			fmt.Fprintf(&script, "delete %s %s\n", u.Name, u.Old)
		default:
			fmt.Fprintf(&script, "update %s %s %s\n", u.Name, u.New, u.Old)
		}
	}
	script.WriteString("prepare\ncommit\n")
	_, err := g.git(ctx, script.String(), "update-ref", "--stdin")
	return err
}

// moveInProcess moves refs in a transaction made in process (reftx.go),
// which an interrupt lets end (guardTransaction); errInProcess, with
// nothing held, when git must make it.
func (g *Repo) moveInProcess(refs []pkgrev.RefUpdate) error {
	defer guardTransaction()()
	tx, err := g.prepareRefs(refs)
	if err != nil {
		return err
	}
	if h := transactionHook.Load(); h != nil {
		(*h)()
	}
	return tx.commit()
}

// writeCommits writes a change's commits in order, each Base or parent of
// pkgrev.Prior the commit written before it; it returns the last ("" for
// none).
func (g *Repo) writeCommits(commits []*pkgrev.NewCommit) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = g.newBatch()
	defer func() { g.pending = nil }()
	prior := ""
	for _, nc := range commits {
		c := *nc
		if c.Base == pkgrev.Prior {
			c.Base = prior
		}
		c.Parents = slices.Clone(c.Parents)
		for i, p := range c.Parents {
			if p == pkgrev.Prior {
				c.Parents[i] = prior
			}
		}
		if slices.Contains(c.Parents, "") || prior == "" && nc.Base == pkgrev.Prior {
			return "", fmt.Errorf("cannot write a commit in %s: it names a commit written before it, and there is none", g.URL)
		}
		var err error
		if prior, err = g.writeCommit(&c); err != nil {
			return "", err
		}
	}
	if err := g.pending.flush(); err != nil {
		return "", fmt.Errorf("cannot write the objects of a change in %s: %w", g.URL, err)
	}
	return prior, nil
}

// checkUpdates refuses what kptkit never does to refs: write outside
// refs/heads/ and refs/tags/ (refs/remotes/ are a clone's record of its
// remote), move a published tag, or name a ref git would not take.
func checkUpdates(refs []pkgrev.RefUpdate) error {
	for _, u := range refs {
		isTag := strings.HasPrefix(u.Name, pkgrev.TagsPrefix)
		switch {
		case !isTag && !strings.HasPrefix(u.Name, pkgrev.HeadsPrefix):
			return fmt.Errorf("refusing to write %s: kptkit writes only refs/heads/ and refs/tags/", u.Name)
		case !validRefName(u.Name):
			return fmt.Errorf("refusing to write %s: not a valid ref name", u.Name)
		case isTag && u.Old != "" && (u.New != "" || u.ToCommit):
			return fmt.Errorf("refusing to move the tag %s: a published revision's tag never moves", u.Name)
		case u.Old == "" && u.New == "" && !u.ToCommit:
			return fmt.Errorf("refusing to write %s: nothing to write", u.Name)
		}
	}
	return nil
}

// validRefName reports whether git takes a ref name (check-ref-format's
// rules, for names kptkit makes from package paths).
func validRefName(name string) bool {
	if strings.ContainsAny(name, " ~^:?*[\\\x7f") || strings.Contains(name, "..") || strings.Contains(name, "@{") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.Contains(name, "//") {
		return false
	}
	for _, r := range name {
		if r < 0x20 {
			return false
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") || strings.HasSuffix(seg, ".lock") {
			return false
		}
	}
	return true
}

// refuseCheckedOut refuses to move a branch checked out in one of the
// repository's work trees: moving it would leave that work tree's files
// behind its branch.
func (g *Repo) refuseCheckedOut(ctx context.Context, refs []pkgrev.RefUpdate) error {
	moves := false
	for _, u := range refs {
		moves = moves || strings.HasPrefix(u.Name, pkgrev.HeadsPrefix)
	}
	if !moves {
		return nil
	}
	trees, err := g.workTrees(ctx)
	if err != nil {
		return fmt.Errorf("cannot list the work trees of %s: %w", g.URL, err)
	}
	for _, w := range trees {
		for _, u := range refs {
			if u.Name == w.branch {
				return fmt.Errorf("cannot move branch %s of %s: it is checked out in the work tree %s (Porch's branches are kept in a bare repository, or a clone with another branch checked out)",
					strings.TrimPrefix(w.branch, pkgrev.HeadsPrefix), g.URL, w.path)
			}
		}
	}
	return nil
}

// workTree is a work tree of the repository and the branch checked out
// there ("" for none: a detached head).
type workTree struct{ path, branch string }

// workTrees lists the repository's work trees as git worktree list does.
func (g *Repo) workTrees(ctx context.Context) ([]workTree, error) {
	if trees, ok := g.workTreeFiles(); ok {
		return trees, nil
	}
	out, err := g.git(ctx, "", "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var trees []workTree
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			trees = append(trees, workTree{path: p})
		}
		if b, ok := strings.CutPrefix(line, "branch "); ok && len(trees) > 0 {
			trees[len(trees)-1].branch = b
		}
	}
	return trees, nil
}

// git runs git in the repository with stdin, and returns its stdout; its
// stderr is the error. Variables that would point git at another
// repository are left out of its environment, and it does not look for a
// repository above the one opened.
func (g *Repo) git(ctx context.Context, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	abs, err := filepath.Abs(g.Path)
	if err != nil {
		return "", err
	}
	gitProcesses.Add(1)
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", abs}, args...)...)
	cmd.Env = append(gitEnv(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(abs))
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(strings.TrimPrefix(msg, "fatal: "))
		}
		return "", err
	}
	return stdout.String(), nil
}

// gitEnv is the environment without the variables that choose a
// repository.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES":
			continue
		}
		env = append(env, kv)
	}
	return env
}
