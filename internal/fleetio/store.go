package fleetio

import (
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/textdiff"
)

// Store is an output folder as the fleet's Store: each package written all
// or nothing, and only the files it names (pkgfs.Out).
type Store struct{ Out *pkgfs.Out }

var _ fleet.Store = Store{}

// Packages lists the output's packages with their Kptfiles.
func (s Store) Packages() ([]fleet.Stored, error) {
	paths, err := s.Out.Packages()
	if err != nil {
		return nil, err
	}
	out := make([]fleet.Stored, 0, len(paths))
	for _, p := range paths {
		kf, err := s.Out.ReadFile(path.Join(p, kptfile.FileName))
		if err != nil {
			return nil, err
		}
		out = append(out, fleet.Stored{Path: p, Kptfile: kf})
	}
	return out, nil
}

func (s Store) Read(p string) (kptpkg.Files, error) { return s.Out.Read(p) }
func (s Store) Write(p string, old, files kptpkg.Files) (bool, error) {
	return s.Out.Write(p, old, files)
}
func (s Store) Delete(p string, files kptpkg.Files) error { return s.Out.Delete(p, files) }

// DryRun is an output folder read but never written: it keeps what a run
// would write, for a diff (--dry-run) or a verdict (--check).
type DryRun struct {
	Store
	mu      sync.Mutex
	changes map[string]change
}

var _ fleet.Store = (*DryRun)(nil)

type change struct {
	old, new kptpkg.Files // new is nil for a deletion
}

// Write keeps the package's new files when they differ from old.
func (d *DryRun) Write(p string, old, files kptpkg.Files) (bool, error) {
	if old != nil && old.Equal(files) {
		return false, nil
	}
	d.record(p, change{old: old, new: files})
	return true, nil
}

// Delete keeps that the package's files would go.
func (d *DryRun) Delete(p string, files kptpkg.Files) error {
	d.record(p, change{old: files})
	return nil
}

func (d *DryRun) record(p string, c change) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.changes == nil {
		d.changes = map[string]change{}
	}
	d.changes[p] = c
}

// Diff writes a unified diff of every change, packages and files in order,
// named as git names them (a/<out>/<package>/<file>).
func (d *DryRun) Diff(w io.Writer, out string) {
	for _, p := range slices.Sorted(maps.Keys(d.changes)) {
		c := d.changes[p]
		diffPackage(w, strings.TrimPrefix(path.Join(filepath.ToSlash(out), p), "/"), c.old, c.new)
	}
}

// diffPackage writes a unified diff of a package's files from old to new
// (nil: none), files in order, named as git names them (a/<name>/<file>).
func diffPackage(w io.Writer, name string, old, new kptpkg.Files) {
	files := map[string]bool{}
	for f := range old {
		files[f] = true
	}
	for f := range new {
		files[f] = true
	}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		file := path.Join(name, f)
		oldName, newName := "a/"+file, "b/"+file
		if _, ok := old[f]; !ok {
			oldName = "/dev/null"
		}
		if _, ok := new[f]; !ok {
			newName = "/dev/null"
		}
		fmt.Fprint(w, textdiff.Unified(oldName, newName, string(old[f]), string(new[f])))
	}
}
