// Package inject fills a kpt package's injection points from in-cluster
// objects, as Porch does for a PackageVariant's spec.injectors: a
// ResourceList and a Request (injectors, namespace, inline objects) go in;
// the points (items annotated kpt.dev/config-injection) come out with their
// data (ConfigMap) or spec (any other kind) replaced by the selected
// object's and annotated kpt.dev/injected-resource, the root Kptfile with a
// condition per point and a readiness gate per required point, and the
// in-cluster items removed, since they are inputs and not package content.
package inject
