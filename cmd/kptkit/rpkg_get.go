package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

const rpkgGetHelp = `Lists the package revisions of the namespace's Repositories (or the one named
NAME) in porchctl rpkg get's columns: NAME, PACKAGE, WORKSPACENAME, REVISION
(0 for a draft or proposal, -1 for the branch's head), LATEST, LIFECYCLE,
REPOSITORY. --json prints a porch.kpt.dev/v1alpha1 PackageRevisionList with
Porch's spec (tasks included, read from the commits' annotations) and status.
A Repository that cannot be read is reported, the others listed (exit 1).`

// listed is one Repository's package revisions, or why they could not be
// read.
type listed struct {
	snap *pkgrev.Snapshot
	git  *gitrepo.Repo
	err  error
}

func rpkgGet(c *call, args []string) error {
	f := newRpkgFlags(c, false)
	asJSON := f.Bool("json", false, "print a porch.kpt.dev/v1alpha1 PackageRevisionList as JSON (Porch's spec and status, tasks included)")
	e, err := f.parse(c, args, nil, 1)
	if err != nil {
		return err
	}
	name := f.Arg(0)
	repos := e.repos
	if name != "" {
		repo, ok := e.repository(name)
		if !ok {
			return errNotFound(name)
		}
		repos = []pkgrev.Repository{repo}
	}
	lists := e.list(repos)
	failed := false
	for _, l := range lists {
		if l.err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", c.path, l.err)
			failed = true
		}
	}
	if name != "" && !failed {
		if lists, err = only(lists, name); err != nil {
			return err
		}
	}
	if *asJSON {
		err = writeRevisionList(c.stdout, lists)
	} else {
		err = writeRevisionTable(c.stdout, lists)
	}
	if err == nil && failed {
		return exitCode(1)
	}
	return err
}

// workers is how many repositories are read at once.
func workers(n int) int { return min(n, 2*runtime.GOMAXPROCS(0)) }

// list reads the repositories' package revisions, several at once.
func (e *rpkgEnv) list(repos []pkgrev.Repository) []listed {
	out := make([]listed, len(repos))
	parallel.Do(len(repos), workers(len(repos)), func(_, i int) {
		s, g, err := e.snapshot(repos[i])
		out[i] = listed{snap: s, git: g, err: err}
	})
	return out
}

// only keeps the revision with the name; none is an error.
func only(lists []listed, name string) ([]listed, error) {
	for _, l := range lists {
		if rev, ok := l.snap.Find(name); ok {
			snap := *l.snap
			snap.Revisions = []pkgrev.Revision{*rev}
			return []listed{{snap: &snap, git: l.git}}, nil
		}
	}
	return nil, errNotFound(name)
}

// writeRevisionTable prints the revisions as porchctl rpkg get prints
// Porch's table (kubectl's printer: upper-case headers, columns aligned by a
// tabwriter of minimum width 6, tab width 4, padding 3); nothing when there
// are none.
func writeRevisionTable(w io.Writer, lists []listed) error {
	tw := tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
	header := false
	for _, l := range lists {
		if l.snap == nil {
			continue
		}
		for _, r := range l.snap.Revisions {
			if !header {
				fmt.Fprintln(tw, "NAME\tPACKAGE\tWORKSPACENAME\tREVISION\tLATEST\tLIFECYCLE\tREPOSITORY")
				header = true
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%t\t%s\t%s\n", r.Name, r.Package, r.Workspace, r.Revision, r.Latest, r.Lifecycle, l.snap.Repo.Name)
		}
	}
	return tw.Flush()
}

// writeRevisionList prints the revisions as a PackageRevisionList, indented
// as kubectl prints JSON.
func writeRevisionList(w io.Writer, lists []listed) error {
	list := porch.PackageRevisionList{Kind: porch.KindRevisionList, APIVersion: porch.V1alpha1, Items: []porch.PackageRevision{}}
	for _, l := range lists {
		if l.snap == nil {
			continue
		}
		items := make([]porch.PackageRevision, len(l.snap.Revisions))
		errs := make([]error, len(items))
		parallel.Do(len(items), workers(len(items)), func(_, i int) {
			items[i], errs[i] = object(l.snap, &l.snap.Revisions[i], l.git)
		})
		l.git.Release()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		list.Items = append(list.Items, items...)
	}
	b, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// object reads what a revision's PackageRevision shows: its Kptfile, its
// tasks, its publisher.
func object(s *pkgrev.Snapshot, rev *pkgrev.Revision, g *gitrepo.Repo) (porch.PackageRevision, error) {
	objs := g.Revisions()
	files, err := g.Files(rev.Commit, rev.Path)
	if err != nil {
		return porch.PackageRevision{}, err
	}
	var d pkgrev.Details
	d.Kptfile, _ = pkgrev.ReadKptfile(files[kptfile.FileName]) // Porch shows a Kptfile it cannot read as empty
	if d.Tasks, err = pkgrev.Tasks(objs, rev); err != nil {
		return porch.PackageRevision{}, err
	}
	if pkgrev.IsPublished(rev.Lifecycle) {
		if d.Published, err = pkgrev.PublishedBy(objs, s, rev); err != nil {
			return porch.PackageRevision{}, err
		}
	}
	return pkgrev.Object(s.Repo, rev, d), nil
}
