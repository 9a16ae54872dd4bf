package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/fleetio"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/internal/version"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

var variantsCommand = &command{
	name:    "variants",
	summary: "render a fleet of package variants locally, as Porch would (variants render --help)",
	subs:    []*command{{name: "render", synopsis: "--variants PATH (--out DIR | --git --status FILE) [--cluster PATH] [--upstream DIR] [flags]", help: variantsHelp, run: variantsRender}, mergeStatusCommand},
}

const variantsHelp = `Renders, without a cluster, what Porch would make of PackageVariantSets and
PackageVariants. Each set is expanded over the cluster's objects
(fan-out-variants); every variant's upstream package is cloned as kpt pkg get
clones it into OUT/<downstream repo>/<downstream package>/ (or, when the
package exists and its upstream moved, updated as kpt pkg update does, its
own edits kept), given its package context, its pipeline and its injection
points filled from the cluster's objects, and rendered.

Upstreams come from the cluster's Repository objects (git: a local path or
file:// URL; remote URLs through --repo-map), or, for repositories the cluster
does not describe, from --upstream: a folder of packages named by their path
below it. A relative spec.git.repo is a path from the folder of the file the
Repository is written in, not from the working folder; the packages' Kptfiles
record it as written, so that the output is the same wherever it is rendered.
PackageVariantSets need --cluster: the Repositories and objects they expand
over.

Only packages a variant owns (kptkit.dev/owner on their Kptfile, at the
path kptkit.dev/downstream names) are ever written or removed, each all or
nothing, and in them only the files kptkit wrote. One run writes OUT at a
time: another fails at once naming it, or waits with --wait. The status of
every variant and set is written to OUT/variants.status.yaml (or --status).

With --git, each variant's package goes instead into the git repository of
its downstream Repository as Porch's PackageVariant controller writes it: a
Draft PackageRevision (drafts/<dir>/<package>/packagevariant-N: a clone,
edit or upgrade commit, then "Rendering package"), the newest owned draft
updated in place, a proposed one left to its reviewers; --lifecycle proposes
or publishes what the run committed, --push pushes the refs it changed.
--status records the last commit kptkit made on each draft: a reviewer's
commits are kept, a history rewritten under kptkit fails the variant. See
docs/porch-git.md.

With --shard K/N the run renders and prunes one of N shares of the fleet, for
N workers on copies of OUT (docs/scale.md); its status goes to
OUT/variants.status.K-of-N.yaml, and kptkit variants merge-status puts the N
files together.

Each step of a package's pipeline is bounded as in kptkit render: a step
that runs longer than --step-timeout, or whose process (starlark, an
--exec-for binary) maps more than --step-memory for its data, fails its
variant (RenderFailed); the others are written.

Exit status: 0 when every variant rendered, 1 when any failed (the others are
written) or --check finds changes, 2 for bad usage.`

func variantsRender(call *call, args []string) error {
	c := variantsFlags(call)
	if err := call.parse(c.FlagSet, args, 0); err != nil {
		return err
	}
	if err := c.validate(); err != nil {
		return usageError{err}
	}
	return c.run(call.stdout, call.stderr)
}

// variantsCmd holds the flags of variants render.
type variantsCmd struct {
	*flag.FlagSet
	variants, cluster, upstream, out, status, onConflict string
	jobs                                                 int
	wait                                                 time.Duration
	render, prune, pruneAll, dryRun, check, asJSON       bool
	repoMap, execFor                                     *pairFlag
	prefixes                                             listFlag
	limits                                               *limitFlags
	shard                                                shardFlag // shard.go
	git                                                  gitFlags
}

func variantsFlags(call *call) *variantsCmd {
	c := &variantsCmd{FlagSet: call.flags(), repoMap: newPairFlag("URL=PATH"), execFor: newPairFlag("IMAGE=PATH")}
	c.StringVar(&c.variants, "variants", "", "PackageVariantSets and PackageVariants: a YAML file or a folder of them, `PATH`")
	c.StringVar(&c.cluster, "cluster", "", "the management cluster's objects (Repositories, targets, injection sources): a YAML file or a folder, `PATH`")
	c.StringVar(&c.upstream, "upstream", "", "a folder of upstream packages, `DIR`, for repositories the cluster has no git location for")
	c.StringVar(&c.out, "out", "", "the output folder, `OUT`: OUT/<repo>/<package>/")
	c.StringVar(&c.status, "status", "", "the `FILE` the variants' and sets' status goes to (default OUT/variants.status.yaml)")
	c.IntVar(&c.jobs, "jobs", 0, "`N` variants rendered at once (default: the number of cores; with --git four times that, as each waits on git to move its refs)")
	c.BoolVar(&c.render, "render", true, "run each package's Kptfile pipeline after the variant's changes, as kptkit render does (exec: entries skipped, with a warning)")
	c.Var(c.execFor, "exec-for", "render the image `IMAGE=PATH` (with a tag, or any tag) with the binary PATH (repeatable)")
	c.Var(&c.prefixes, "builtin-prefix", "an image `PREFIX` whose <prefix>/<function> images are kptkit's functions (repeatable)")
	c.BoolVar(&c.prune, "prune", true, "remove (or release, by deletionPolicy) the packages this run's sets and variants no longer want")
	c.BoolVar(&c.pruneAll, "prune-all", false, "also remove packages whose variant is not in this run (the inputs are the whole fleet)")
	c.StringVar(&c.onConflict, "on-conflict", "error", "`MODE` for an update whose upstream and downstream changed one field differently: error (the variant fails) or upstream (kpt's behaviour)")
	c.Var(c.repoMap, "repo-map", "read the git repository URL from the local clone PATH, `URL=PATH` (repeatable)")
	c.BoolVar(&c.dryRun, "dry-run", false, "write nothing; print a unified diff of what would change")
	c.BoolVar(&c.check, "check", false, "write nothing; exit 1 when anything would change (for CI)")
	c.BoolVar(&c.asJSON, "json", false, "print the summary as JSON")
	c.limits = addStepLimits(c.FlagSet)
	c.DurationVar(&c.wait, "wait", 0, "wait up to `DURATION` for another run on --out to end (default: fail at once)")
	c.addShardFlag()
	c.git.add(c.FlagSet)
	return c
}

func (c *variantsCmd) validate() error {
	switch {
	case c.variants == "":
		return errors.New("--variants is required")
	case c.out == "" && !c.git.on:
		return errors.New("--out is required")
	case c.onConflict != "error" && c.onConflict != "upstream":
		return fmt.Errorf("--on-conflict is %q: it takes error or upstream", c.onConflict)
	case c.jobs < 0:
		return fmt.Errorf("--jobs is %d: it takes a positive number", c.jobs)
	case c.wait < 0:
		return fmt.Errorf("--wait is %s: it takes a duration of 0 or more", c.wait)
	case c.git.on:
		if err := c.validateGit(); err != nil {
			return err
		}
	}
	if err := c.validateShard(os.Getenv); err != nil {
		return err
	}
	_, err := c.limits.limits()
	return err
}

// run renders the fleet: the report on stdout, warnings and failures on
// stderr; a failed variant, a problem of the inputs or --check's changes
// make it fail (exitCode 1), after the others are written.
func (c *variantsCmd) run(stdout, stderr io.Writer) error {
	in, err := fleetio.ReadInput(c.variants, c.cluster)
	if err != nil {
		return err
	}
	if sets := setNames(in); c.cluster == "" && len(sets) > 0 {
		what := "PackageVariantSet " + sets[0] + " needs"
		if len(sets) > 1 {
			what = "PackageVariantSets " + strings.Join(sets[:len(sets)-1], ", ") + " and " + sets[len(sets)-1] + " need"
		}
		return usageErrorf("%s --cluster: a set expands over the management cluster's "+
			"Repositories and objects, and without them it wants no variants (and its packages would be removed); "+
			"give --cluster a file or folder of those objects (an empty one when the sets need none)", what)
	}
	src := &upstream.Source{RepoMap: c.repoMap.m, FolderName: c.upstream}
	if c.git.on {
		return c.runGit(in, src, stdout, stderr)
	}
	if c.upstream != "" {
		if src.Folder, err = fleetio.ReadUpstreams(c.upstream); err != nil {
			return err
		}
	}
	readOnly := c.dryRun || c.check
	out, err := pkgfs.Open(c.out, pkgfs.Options{ReadOnly: readOnly, Wait: c.wait})
	if err != nil {
		return lockHint(err)
	}
	defer out.Close()
	for _, p := range out.Pending() {
		fmt.Fprintf(stderr, "kptkit variants render: warning: %s holds a write a stopped run left unfinished (%s): "+
			"the next run that writes undoes it; until then this run reads the packages as they are\n", c.out, p)
	}
	var store fleet.Store = fleetio.Store{Out: out}
	var dry *fleetio.DryRun
	if readOnly {
		dry = &fleetio.DryRun{Store: fleetio.Store{Out: out}}
		store = dry
	}
	opts := c.options(src, store)
	p := newProgress(stderr)
	opts.Progress = p.update
	report, err := fleet.Run(in, opts)
	p.finish()
	if err != nil {
		return err
	}
	var statusErr error
	if dry == nil {
		statusErr = c.writeStatus(out, report)
	}
	summarize(stdout, stderr, c.out, report, c.asJSON)
	if dry != nil && c.dryRun {
		dry.Diff(stdout, c.out)
	}
	switch {
	case statusErr != nil:
		return statusErr
	case report.Failed():
		return exitCode(1)
	case c.check && report.Counts().Changed():
		return errors.New("--check: the output is not what the variants render to")
	}
	return nil
}

// options are the fleet's options the flags ask for, with the upstreams
// from src and the packages kept in store (nil in git).
func (c *variantsCmd) options(src fleet.Source, store fleet.Store) fleet.Options {
	opts := fleet.Options{
		Source: src, Store: store, Env: functions.Env(), Jobs: c.jobs,
		Prune: c.prune, PruneAll: c.pruneAll, TakeUpstream: c.onConflict == "upstream",
		Salt:  "kptkit " + version.Get().Version + renderSalt(c.render, c.prefixes, c.execFor.m),
		Shard: c.shard.shard,
	}
	if c.render {
		// Rendering makes much short-lived garbage (each variant's steps
		// write and parse its items) over a small live heap: collect less
		// often, within a bound that keeps a large fleet under 1 GB.
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(renderMemoryLimit)
		opts.Planned = func() { sizeMemoryLimit(!c.shard.shard.Whole()) }
		limits, _ := c.limits.limits()
		opts.Render = fleetio.Renderer{
			Runtime: newRuntime(os.Environ(), c.prefixes, c.execFor.m, limits),
			Env:     functions.Env(),
			Watch:   watch(limits),
		}
	}
	return opts
}

// renderMemoryLimit is the collector's soft limit while a fleet renders,
// unless what the plan keeps asks for more (sizeMemoryLimit).
const renderMemoryLimit = 768 << 20

// sizeMemoryLimit raises the soft memory limit once the plan is made when
// the run then holds more than a fleet of 10,000 variants does (128 MiB),
// or is a shard (whose plan keeps the other shards' variants, and whose
// budget is 1.2 GB): within 768 MiB the collector would mark that heap
// again every few variants. It leaves 896 MiB of room above what the run
// holds, up to 1 GiB, which keeps the process under 1.2 GB.
func sizeMemoryLimit(shard bool) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	debug.SetMemoryLimit(memoryLimitFor(m.HeapAlloc, shard))
}

// memoryLimitFor is the soft limit for a live heap of the given size, in a
// shard or a whole run.
func memoryLimitFor(live uint64, shard bool) int64 {
	if live <= 128<<20 && !shard {
		return renderMemoryLimit
	}
	return min(max(renderMemoryLimit, int64(live)+896<<20), 1<<30)
}

// writeStatus writes the status stream into the output, or to --status,
// unless it holds that already.
func (c *variantsCmd) writeStatus(out *pkgfs.Out, r *fleet.Report) error {
	b, err := kptpkg.Encode(r.Status)
	if err != nil {
		return err
	}
	if c.status == "" {
		_, err = out.WriteFile(c.statusName(), b)
	} else {
		_, err = pkgfs.WriteFile(c.status, b)
	}
	if err != nil {
		return fmt.Errorf("the status: %w", err)
	}
	return nil
}

// statusFile is the status's place in the output, without --status.
const statusFile = "variants.status.yaml"

// lockHint adds what to do to an output another run holds.
func lockHint(err error) error {
	var locked *pkgfs.LockedError
	if errors.As(err, &locked) && locked.Waited == 0 {
		return fmt.Errorf("%w; wait for it to end, or give --wait DURATION", err)
	}
	return err
}

// summarize prints what the run did: a line per variant, every failure's
// message once (on stderr, after the counts), and the counts unless the
// inputs' errors left nothing to count (or all of it as JSON).
func summarize(stdout, stderr io.Writer, out string, r *fleet.Report, asJSON bool) {
	n := r.Counts()
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			*fleet.Report
			Counts fleet.Counts `json:"counts"`
		}{r, n})
		return
	}
	for _, res := range r.Results {
		fmt.Fprintln(stderr, res.String())
	}
	for _, v := range r.Variants {
		fmt.Fprintf(stdout, "%s/%s: %s\n", v.Namespace, v.Name, v.Summary())
		for _, res := range v.Results {
			if res.Severity == result.SeverityWarning {
				fmt.Fprintf(stderr, "  %s\n", res.String()) // names the resource when the message does not
			}
		}
	}
	for _, rm := range r.Removed {
		switch {
		case rm.Error != "":
			fmt.Fprintf(stdout, "failed to remove %s (owned by %s): %s\n", rm.Path, rm.Owner, rm.Error)
		case rm.Released:
			fmt.Fprintf(stdout, "released %s (%s is gone; deletionPolicy orphan)\n", rm.Path, rm.Owner)
		case rm.Proposed:
			fmt.Fprintf(stdout, "proposed %s for deletion (%s no longer wants it)\n", rm.Path, rm.Owner)
		default:
			fmt.Fprintf(stdout, "deleted %s (%s no longer wants it)\n", rm.Path, rm.Owner)
		}
	}
	if len(r.Variants) == 0 && len(r.Removed) == 0 && r.Results.HasError() {
		return // the errors say why nothing was rendered
	}
	what := "variants rendered into " + out
	if len(r.Variants) == 1 {
		what = "variant rendered into " + out
	}
	if r.Shard != "" {
		what += " (shard " + r.Shard + ")"
	}
	if !n.Changed() {
		what += ": nothing changed"
	}
	fmt.Fprintf(stdout, "%d %s: %d created, %d updated, %d unchanged, %d deleted, %d released, %d failed\n",
		len(r.Variants), what, n.Created, n.Updated, n.Unchanged, n.Deleted, n.Released, n.Failed)
	for _, v := range r.Variants {
		if v.Outcome == fleet.Failed {
			fmt.Fprintf(stderr, "failed: %s/%s (%s): %s\n", v.Namespace, v.Name, v.Where, v.Message)
		}
	}
}

// renderSalt is what of the runtime's set-up goes into every variant's
// inputs digest: packages rendered with other images mapped are rendered
// again.
func renderSalt(on bool, prefixes []string, execFor map[string]string) string {
	if !on || len(prefixes) == 0 && len(execFor) == 0 {
		return ""
	}
	s := " prefixes=" + strings.Join(prefixes, ",")
	for _, k := range slices.Sorted(maps.Keys(execFor)) {
		s += " " + k + "=" + execFor[k]
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// setNames names the PackageVariantSets of the input.
func setNames(in fleet.Input) []string {
	var names []string
	for _, n := range in.Variants {
		if n.GetKind() == porch.KindVariantSet {
			names = append(names, n.GetName())
		}
	}
	return names
}
