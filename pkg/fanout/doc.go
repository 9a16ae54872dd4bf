// Package fanout expands a Porch PackageVariantSet (v1alpha2) as Porch's
// controller does, without a cluster: the set, and the Repository,
// PackageRevision and target objects of its namespace in a ResourceList go
// in; one PackageVariant per target comes out, rendered from the target's
// template (CEL expressions included), and the set's existing children in the
// list are reconciled with them (matched by identifier, updated in place,
// new ones added, stale ones removed).
package fanout
