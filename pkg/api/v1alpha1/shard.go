package v1alpha1

// Names of a shard's status file (`kptkit variants render --shard K/N`):
// its first document says which shard of which fleet wrote it, and each
// entry another shard renders is marked with that shard.
const (
	// KindFleetShard is the first document of a shard's status file:
	// spec.shard (K/N) and spec.fleet (the fleet's digest).
	KindFleetShard = "FleetShard"
	// AnnotationShard marks a status entry another shard renders, K/N: its
	// status is in that shard's file.
	AnnotationShard = "kptkit.dev/shard"
)

// TypeFleetShard is the apiVersion and kind of a shard status file's head.
var TypeFleetShard = TypeMeta{APIVersion: APIVersion, Kind: KindFleetShard}
