package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/kptkit/kptkit/internal/fleetio"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// gitFlags are variants render's flags for git (--git): the packages go to
// the downstream Repositories' git repositories as Porch's package
// revisions.
type gitFlags struct {
	on, push          bool
	lifecycle, author string
}

func (g *gitFlags) add(f *flag.FlagSet) {
	f.BoolVar(&g.on, "git", false, "write each variant's package as a Draft PackageRevision into its downstream Repository's git repository, as Porch does (needs --status; not --out, not --upstream)")
	f.StringVar(&g.lifecycle, "lifecycle", "draft", "with --git, what the revisions the run writes become, `LIFECYCLE`: draft, proposed, or published (an auto-approval: only revisions this run committed)")
	f.BoolVar(&g.push, "push", false, "with --git, push the refs the run changed in each repository to its spec.git.repo with git push --atomic (never forced)")
	f.StringVar(&g.author, "author", "", "with --git, the commits' author `NAME` (and email) when the Repository names none (default: Porch's own)")
}

// lifecycles are --lifecycle's values, as Porch names them.
var lifecycles = map[string]string{"draft": porch.LifecycleDraft, "proposed": porch.LifecycleProposed, "published": porch.LifecyclePublished}

func (c *variantsCmd) validateGit() error {
	switch {
	case c.status == "":
		return errors.New("--status is required with --git: it records the last commit kptkit made on each draft, to tell a reviewer's commits from a rewritten history")
	case c.out != "":
		return errors.New("--out is not used with --git: the packages go to the downstream Repositories' git repositories")
	case c.upstream != "":
		return errors.New("--upstream is refused with --git: a folder has no revision for a clone task to name; give the upstream Repository's git repository")
	case lifecycles[c.git.lifecycle] == "":
		return fmt.Errorf("--lifecycle is %q: it takes draft, proposed or published", c.git.lifecycle)
	case c.git.push && (c.dryRun || c.check):
		return errors.New("--push writes: not with --dry-run or --check")
	}
	return nil
}

// runGit renders the fleet into the downstream Repositories' git
// repositories (see validateGit), then writes the status.
func (c *variantsCmd) runGit(in fleet.Input, src fleet.Source, stdout, stderr io.Writer) error {
	when, err := commitTime()
	if err != nil {
		return err
	}
	records, err := readRecords(c.status)
	if err != nil {
		return err
	}
	dry := c.dryRun || c.check
	rv := &fleetio.Revisions{RepoMap: c.repoMap.m, Wait: c.wait, DryRun: dry, Push: c.git.push}
	defer rv.Close()
	opts := c.options(src, nil)
	if c.jobs == 0 {
		// Each variant's change waits on the disk (its pack synced, its
		// refs' locks), and on a git process where git moves its refs
		// (gitrepo.Repo.Apply): more variants at once than cores.
		opts.Jobs = 4 * runtime.GOMAXPROCS(0)
	}
	opts.Revisions, opts.Records, opts.When, opts.Author = rv, records, when, c.git.author
	opts.Lifecycle = lifecycles[c.git.lifecycle]
	p := newProgress(stderr)
	opts.Progress = p.update
	report, err := fleet.Run(in, opts)
	p.finish()
	if err != nil {
		return err
	}
	if !dry {
		if err := c.writeStatus(nil, report); err != nil {
			return err
		}
	}
	summarize(stdout, stderr, "the Repositories' git repositories", report, c.asJSON)
	if c.dryRun {
		rv.Diff(stdout)
	}
	switch {
	case report.Failed():
		return exitCode(1)
	case c.check && rv.Changed():
		return errors.New("--check: the repositories are not what the variants render to")
	}
	return nil
}

// readRecords reads what the last run in git recorded in its status file
// (none when there is no file yet).
func readRecords(file string) (map[string]fleet.Record, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the status: %w", err)
	}
	items, err := kptpkg.Items(file, b)
	if err != nil {
		return nil, fmt.Errorf("the status %s: %w", file, err)
	}
	return fleet.Records(items), nil
}
