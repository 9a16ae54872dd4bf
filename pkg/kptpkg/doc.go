// Package kptpkg is a kpt package as one value: its files by path go in (read
// from a folder, an fs.FS or a git tree), and come out as kpt sees them —
// which files hold resources (Kptfile, *.yaml, *.yml, less what each
// package's .krmignore names), which folders are subpackages, the items of a
// package as a ResourceList with kpt's path and index annotations, and the
// files again after functions changed the items (files whose items did not
// change keep their bytes). It also holds the root Kptfile's field order and
// the one check every path a package names must pass.
package kptpkg
