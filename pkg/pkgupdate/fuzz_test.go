package pkgupdate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

// FuzzUpdate clones and updates small random packages: an upstream at two
// versions (a Kptfile, a resource file, a subpackage with the same resource
// file) and a downstream edit of the resource file. Properties: no panic;
// updating a clone to the revision it was cloned from changes nothing;
// KeepLocal leaves a package with conflicts as it was, and without conflicts
// agrees with TakeUpstream.
func FuzzUpdate(f *testing.F) {
	v1 := upstreamV1()
	f.Add(kptfileV1, string(v1["deploy.yaml"]), kptfileV1, string(upstreamV2(f, v1)["deploy.yaml"]), string(conflictingEdits(f, clone(f, v1, origin1))["deploy.yaml"]))
	f.Add(kptfileV1, string(v1["cm.yaml"]), string(namedV1()["Kptfile"]), string(upstreamV2(f, v1)["cm.yaml"]), string(v1["cm.yaml"]))
	f.Add(kptfile("x"), deployment, kptfile("y"), deployment+"---\n"+configMap("c", "k: v"), "")
	f.Add("", configMap("a", "k: v"), kptfileV1, configMap("a", "k: [v]"), configMap("a", "k: {v: 1}"))
	f.Fuzz(func(t *testing.T, kf1, a1, kf2, a2, la string) {
		v1 := pkg(kf1, a1)
		v2 := pkg(kf2, a2)
		local, err := pkgupdate.Clone(v1, "app", origin1)
		if err != nil {
			return
		}
		same, conflicts, err := pkgupdate.Update(v1, v1, local, origin1, pkgupdate.KeepLocal)
		if err != nil {
			t.Fatalf("updating a clone to its own revision: %v", err)
		}
		if len(conflicts) > 0 {
			t.Errorf("updating a clone to its own revision: conflicts %v", conflicts)
		}
		if diff := cmp.Diff(texts(local), texts(same)); diff != "" {
			t.Errorf("updating a clone to its own revision changed it (-want +got):\n%s", diff)
		}

		local = local.Clone()
		local["a.yaml"] = []byte(la)
		merged, conflicts, err := pkgupdate.Update(v1, v2, local, origin2, pkgupdate.TakeUpstream)
		if err != nil {
			return
		}
		kept, conflicts2, err := pkgupdate.Update(v1, v2, local, origin2, pkgupdate.KeepLocal)
		if err != nil {
			t.Fatalf("KeepLocal failed where TakeUpstream did not: %v", err)
		}
		if diff := cmp.Diff(conflicts, conflicts2); diff != "" {
			t.Errorf("conflicts differ with the policy (-upstream +local):\n%s", diff)
		}
		want := merged
		if len(conflicts) > 0 {
			want = local
		}
		if diff := cmp.Diff(texts(want), texts(kept)); diff != "" {
			t.Errorf("KeepLocal (-want +got):\n%s", diff)
		}
	})
}

// pkg is a package of the fuzzer's texts: a Kptfile (none for ""), a
// resource file, and a subpackage holding the same resource file.
func pkg(kf, a string) kptpkg.Files {
	files := kptpkg.Files{"a.yaml": []byte(a), "sub/Kptfile": []byte(kptfile("sub")), "sub/a.yaml": []byte(a), "README.md": []byte(a)}
	if kf != "" {
		files["Kptfile"] = []byte(kf)
	}
	return files
}
