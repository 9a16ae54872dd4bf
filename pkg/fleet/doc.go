// Package fleet renders a fleet of package variants locally, as Porch would
// in a management cluster. PackageVariantSets and PackageVariants, the
// cluster's objects (Repositories, the objects sets target, injection
// sources) and three places go in: a Source of upstream packages (folders,
// git revisions), a Store of downstream packages (the output folder, or a
// dry run over it) and a Renderer for Kptfile pipelines. Out comes a Report:
// per variant what became of its package (created, updated, unchanged,
// failed), the packages removed or released, and Porch's status conditions
// for every variant and set.
//
// Each variant's package is cloned from its upstream as `kpt pkg get` clones
// (or, when its upstream moved, merged with it as `kpt pkg update` does), then
// given what Porch gives it — its package context, its pipeline, its
// injection points filled — and rendered. The package never touches the disk
// here: the Store writes it, whole or not at all.
package fleet
