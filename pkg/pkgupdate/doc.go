// Package pkgupdate clones and updates downstream kpt packages as `kpt pkg
// get` and `kpt pkg update --strategy resource-merge` do, in memory: an
// upstream package's files and where they come from (an Origin) go in; the
// downstream package's files come out, with the Kptfile lineage (upstream,
// upstreamLock), the `# kpt-merge:` comments and upstream-identifier
// annotations kpt writes, so that kpt can update what this package wrote and
// the other way round.
//
// Update is kpt's three-way merge (old upstream, new upstream, downstream) on
// kyaml's merge3, resources matched as kpt matches them, and one step
// further: where kpt silently takes the upstream's value for a field both
// sides changed differently, Update reports a Conflict and leaves the
// downstream as it was, unless the Policy is TakeUpstream.
//
// Where the output differs from kpt's on purpose:
//   - files whose items nothing changed keep their bytes (kpt re-encodes
//     every YAML file of the package, and writes Kptfiles from its Go types,
//     dropping their comments, unknown fields and key order); new fields of a
//     Kptfile go where kpt writes them, so that a Kptfile kpt wrote comes out
//     as kpt writes it;
//   - input kpt would accept with a side effect is an error: a YAML file that
//     does not parse (kpt silently skips the merge comments of the whole
//     package), a document without apiVersion and kind, a remote subpackage
//     that was never fetched (no fetching happens here);
//   - YAML files a package's .krmignore names are updated like other
//     non-resource files (kpt neither merges nor updates them), each package
//     honouring its own .krmignore;
//   - nested remote subpackages are updated with the package that holds them,
//     as its upstream has them, and not afterwards from their own upstreams.
package pkgupdate
