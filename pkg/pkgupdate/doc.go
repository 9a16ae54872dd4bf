// Package pkgupdate clones and updates downstream kpt packages as `kpt pkg
// get` and `kpt pkg update --strategy resource-merge` do, in memory: an
// upstream package's files and where they come from (an Origin) go in; the
// downstream package's files come out, with the Kptfile lineage (upstream,
// upstreamLock), the `# kpt-merge:` comments and upstream-identifier
// annotations kpt writes, so that kpt can update what Clone wrote and Update
// can update what kpt wrote (equivalence_test.go runs the real kpt and
// compares every file, byte for byte).
//
// Update is kpt's three-way merge (old upstream, new upstream, downstream) on
// kyaml's merge3, resources matched as kpt matches them (group, kind, the
// namespace and name of the merge comment, file), the Kptfile merged as kpt
// merges it, subpackages and other files added and removed as kpt does. One
// step further: where kpt silently takes the upstream's value for a field
// both sides changed differently, Update reports a Conflict (resource, file,
// field, the three values) and leaves the downstream as it was, unless the
// Policy is TakeUpstream.
//
// Where the output differs from kpt's on purpose:
//   - what nothing changes keeps its bytes: kpt re-encodes every YAML file of
//     the package and writes Kptfiles from its Go types (dropping their
//     comments, key order and quoting); kyaml's merge quotes the strings
//     YAML 1.1 reads otherwise (yes → "yes") and drops null fields even in
//     resources the upstream did not change. Fields a merge adds to a
//     Kptfile go where kpt writes them, so a Kptfile kpt wrote comes out as
//     kpt writes it;
//   - input kpt accepts with a side effect is an error here: a YAML file that
//     does not parse (kpt then silently adds no merge comment anywhere), a
//     document without apiVersion and kind, a remote subpackage that was
//     never fetched (nothing is fetched here);
//   - YAML files a package's .krmignore names are updated like other
//     non-resource files (kpt neither merges nor updates them), and each
//     package's .krmignore covers that package (kpt's get reads the root's
//     only);
//   - a subpackage exists where its Kptfile is (kpt looks for the folder of a
//     local subpackage), and a package's files are those its Kptfile and the
//     downstream's bound (kpt matches folder names as string prefixes);
//   - nested remote subpackages are updated with the package that holds
//     them, as its new upstream has them, and not once more from their own
//     upstreams (no fetching).
//
// Quirks of kpt kept as they are: a non-resource file the downstream deleted
// comes back when the upstream has it; paths with ".git" in them are not
// updated; a subpackage deleted upstream goes with all it holds when its own
// files are unchanged.
package pkgupdate
