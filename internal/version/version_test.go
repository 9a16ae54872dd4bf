package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrom(t *testing.T) {
	t.Parallel()
	const rev = "2263abf6a1f0b6f1c1d7e0c4b6b43c0d9f1e2a3b"
	main := func(v string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/kptkit/kptkit", Version: v}, Settings: settings}
	}
	tests := []struct {
		name             string
		bi               *debug.BuildInfo
		stamped, stampRv string
		want             Info
		wantString       string
		wantTag          string
	}{
		{"make build: stamped", main("(devel)"), "v0.0.0-20261125012400-2263abf6a1f0", rev,
			Info{Version: "v0.0.0-20261125012400-2263abf6a1f0", Revision: rev, Go: "go1.26.8"},
			"v0.0.0-20261125012400-2263abf6a1f0 (revision " + rev + ", go1.26.8)", "v0.0.0-20261125012400-2263abf6a1f0"},
		{"make build with uncommitted changes", main("(devel)"), "v0.3.1-0.20261125012400-2263abf6a1f0+dirty", rev,
			Info{Version: "v0.3.1-0.20261125012400-2263abf6a1f0+dirty", Revision: rev, Modified: true, Go: "go1.26.8"},
			"v0.3.1-0.20261125012400-2263abf6a1f0+dirty (revision " + rev + ", go1.26.8)", "v0.3.1-0.20261125012400-2263abf6a1f0-dirty"},
		{"go install @v0.3.0 from the module proxy", main("v0.3.0"), "", "",
			Info{Version: "v0.3.0", Go: "go1.26.8"},
			"v0.3.0 (revision unknown: built without `make build` or VCS information, go1.26.8)", "v0.3.0"},
		{"go install @commit: a pseudo-version names the revision", main("v0.0.0-20261125012400-2263abf6a1f0"), "", "",
			Info{Version: "v0.0.0-20261125012400-2263abf6a1f0", Revision: "2263abf6a1f0", Go: "go1.26.8"},
			"v0.0.0-20261125012400-2263abf6a1f0 (revision 2263abf6a1f0, go1.26.8)", "v0.0.0-20261125012400-2263abf6a1f0"},
		{"go build in a clone: the toolchain's VCS stamp", main("v0.3.1-0.20261125012400-2263abf6a1f0+dirty",
			debug.BuildSetting{Key: "vcs.revision", Value: rev}, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "", "",
			Info{Version: "v0.3.1-0.20261125012400-2263abf6a1f0+dirty", Revision: rev, Modified: true, Go: "go1.26.8"},
			"v0.3.1-0.20261125012400-2263abf6a1f0+dirty (revision " + rev + ", go1.26.8)", "v0.3.1-0.20261125012400-2263abf6a1f0-dirty"},
		{"go build with VCS information, an older toolchain", main("(devel)",
			debug.BuildSetting{Key: "vcs.revision", Value: rev}, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "", "",
			Info{Version: "(devel)", Revision: rev, Modified: true, Go: "go1.26.8"},
			"(devel) (revision " + rev + ", modified, go1.26.8)", "devel"},
		{"plain go build without VCS information", main("(devel)"), "", "",
			Info{Version: "(devel)", Go: "go1.26.8"},
			"(devel) (revision unknown: built without `make build` or VCS information, go1.26.8)", "devel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := From(tc.bi, tc.stamped, tc.stampRv)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("From (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantString, got.String()); d != "" {
				t.Errorf("String (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantTag, got.Tag()); d != "" {
				t.Errorf("Tag (-want +got):\n%s", d)
			}
		})
	}
}
