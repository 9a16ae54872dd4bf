package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/textdiff"
)

// outStore is the output folder as the fleet's Store.
type outStore struct{ out *pkgfs.Out }

func (s outStore) Packages() ([]fleet.Stored, error) {
	paths, err := s.out.Packages()
	if err != nil {
		return nil, err
	}
	out := make([]fleet.Stored, 0, len(paths))
	for _, p := range paths {
		kf, err := s.out.ReadFile(path.Join(p, kptfile.FileName))
		if err != nil {
			return nil, err
		}
		out = append(out, fleet.Stored{Path: p, Kptfile: kf})
	}
	return out, nil
}

func (s outStore) Read(p string) (kptpkg.Files, error)              { return s.out.Read(p) }
func (s outStore) Write(p string, files kptpkg.Files) (bool, error) { return s.out.Write(p, files) }
func (s outStore) Delete(p string) error                            { return s.out.Delete(p) }

// dryRun is the output folder read but never written: it keeps what a run
// would write, for a diff (--dry-run) or a verdict (--check).
type dryRun struct {
	outStore
	mu      sync.Mutex
	changes map[string]change
}

type change struct {
	old, new kptpkg.Files // new is nil for a deletion
}

func (d *dryRun) Write(p string, files kptpkg.Files) (bool, error) {
	old, err := d.out.Read(p)
	if err != nil || (old != nil && old.Equal(files)) {
		return false, err
	}
	d.record(p, change{old: old, new: files})
	return true, nil
}

func (d *dryRun) Delete(p string) error {
	old, err := d.out.Read(p)
	if err != nil {
		return err
	}
	d.record(p, change{old: old})
	return nil
}

func (d *dryRun) record(p string, c change) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.changes == nil {
		d.changes = map[string]change{}
	}
	d.changes[p] = c
}

// print writes a unified diff of every change, packages and files in order.
func (d *dryRun) print(w io.Writer, out string) {
	for _, p := range sortedKeys(d.changes) {
		c := d.changes[p]
		files := map[string]bool{}
		for f := range c.old {
			files[f] = true
		}
		for f := range c.new {
			files[f] = true
		}
		for _, f := range sortedKeys(files) {
			name := strings.TrimPrefix(path.Join(filepath.ToSlash(out), p, f), "/")
			oldName, newName := "a/"+name, "b/"+name
			if _, ok := c.old[f]; !ok {
				oldName = "/dev/null"
			}
			if _, ok := c.new[f]; !ok {
				newName = "/dev/null"
			}
			fmt.Fprint(w, textdiff.Unified(oldName, newName, string(c.old[f]), string(c.new[f])))
		}
	}
}

// progress shows variants done out of all: a bar on a terminal, a plain
// line every tenth otherwise (CI logs), nothing for small fleets.
type progress struct {
	w    io.Writer
	bar  *progressbar.ProgressBar
	tty  bool
	last int
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == ""}
}

func (p *progress) update(done, total int, _ *fleet.Variant) {
	if total < 20 {
		return
	}
	if p.tty {
		if p.bar == nil {
			p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription("rendering variants"),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
		}
		_ = p.bar.Set(done)
		return
	}
	if tenth := done * 10 / total; tenth > p.last || done == total {
		p.last = tenth
		fmt.Fprintf(p.w, "rendered %d/%d variants\n", done, total)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
