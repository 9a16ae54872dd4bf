// Package catalog reads what package repositories offer and what
// deployment repositories hold, for resolve-deps. Index takes a catalog
// repository's package files per version (kptpkg.Files, from a folder or a
// git revision) and returns one CatalogPackage per package — every folder
// holding a Kptfile, subpackages included — with, per version, the APIs it
// provides (its CRDs and APIServices), the APIs it uses (the kinds of its
// items and its RBAC rules, with the item or rule that uses each), its
// dependencies (the upstreams of the PackageVariants it holds), its
// capabilities (Kptfile annotations) and its parameters (Parameters
// items). Installed takes a deployment repository's files and returns the
// InstalledPackage of each package cloned from an upstream. Both are pure:
// the caller reads the disk and git.
package catalog
