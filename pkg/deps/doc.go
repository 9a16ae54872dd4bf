// Package deps resolves the dependencies of a kpt package: its
// PackageInstalls, the APIs its items and RBAC rules use, the
// CatalogPackages on offer and the InstalledPackages of the cluster go in;
// an InstallPlan (install order, uninstall order, and why each version),
// one Porch PackageVariant per package to install or upgrade, and each
// PackageInstall's status.version come out. It joins Glasskube's dependency
// rules, the Nephio PackageInstall design and the Hub CLI lifecycle over a
// complete search (package solver) that explains every failure by the
// smallest set of constraints that clash.
package deps
