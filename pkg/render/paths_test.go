package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// plant adds a ConfigMap at the path its functionConfig's data.path names,
// as a careless or hostile function may.
var plant = krmfn.Function{Name: "plant", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	p := krmfn.ConfigOf(rl).Node.Field("data").Value.Field("path").Value.YNode().Value
	n, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\ndata:\n  fsmonitor: touch pwned\n")
	if err != nil {
		return err
	}
	if err := n.PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/path", p)); err != nil {
		return err
	}
	_, err = rl.Append(n, "")
	return err
}}

// TestRenderRefusesUnsafeWrites: where kpt writes a function's item into
// .git, or over a file it never gave the function (one .krmignore leaves
// out, one that is not a resource file), kptkit's render fails, naming the
// item and the path, and writes nothing. Paths near them are written.
func TestRenderRefusesUnsafeWrites(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"a.yaml":           []byte(cm("a")),
		"README.md":        []byte("# app\n"),
		"sub/Kptfile":      []byte(pipeline("sub")),
		".krmignore":       []byte("secret/\n"),
		"secret/keep.yaml": []byte("hand: written\n"),
		"sub/.krmignore":   []byte("local.yaml\n"),
		"sub/local.yaml":   []byte("hand: written\n"),
		"sub/data/run.sh":  []byte("#!/bin/sh\n"),
	}
	const planted = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\ndata:\n  fsmonitor: touch pwned\n"
	tests := []struct {
		path, failure string
		in            string // the package whose pipeline plants
	}{
		{".git/config", `ghcr.io/kptkit/plant (pipeline.mutators[0]) failed: function must not modify resources in git's folder: resource has path .git/config (invalid path: ".git" is git's own folder)`, ""},
		{"x/.git/hooks/pre-commit", `ghcr.io/kptkit/plant (pipeline.mutators[0]) failed: function must not modify resources in git's folder: resource has path x/.git/hooks/pre-commit (invalid path: ".git" is git's own folder)`, ""},
		{"./.GIT/config", `ghcr.io/kptkit/plant (pipeline.mutators[0]) failed: function must not modify resources in git's folder: resource has path ./.GIT/config (invalid path: ".GIT" is git's own folder)`, ""},
		{"git~1/config", `ghcr.io/kptkit/plant (pipeline.mutators[0]) failed: function must not modify resources in git's folder: resource has path git~1/config (invalid path: "git~1" is .git on NTFS by its short name git~1, which drops trailing dots and spaces)`, ""},
		{".g\u200cit/config", `ghcr.io/kptkit/plant (pipeline.mutators[0]) failed: function must not modify resources in git's folder: resource has path .g` + "\u200c" + `it/config (invalid path: ".g\u200cit" is .git on HFS+, which ignores U+200C)`, ""},
		{".git/config", `ghcr.io/kptkit/plant (pipeline.mutators[0] of package sub) failed: function must not modify resources in git's folder: resource has path .git/config (invalid path: ".git" is git's own folder)`, "sub"},
		{"secret/keep.yaml", `ConfigMap/planted (secret/keep.yaml): function must not write over secret/keep.yaml: .krmignore leaves the file there out of the package's resources, and kptkit replaces no file a function was not given`, ""},
		{"local.yaml", `ConfigMap/planted (local.yaml): function must not write over sub/local.yaml: .krmignore leaves the file there out of the package's resources, and kptkit replaces no file a function was not given`, "sub"},
		{"README.md", `ConfigMap/planted (README.md): function must not write over README.md: the file there is not a resource file, and kptkit replaces no file a function was not given`, ""},
		{"data/run.sh", `ConfigMap/planted (data/run.sh): function must not write over sub/data/run.sh: the file there is not a resource file, and kptkit replaces no file a function was not given`, "sub"},
		// Paths an item may take: new files, resource files read.
		{"secret/new.yaml", "", ""},
		{".github/cm.yaml", "", ""},
		{".gitignore.yaml", "", ""},
		{"NOTES.md", "", ""},
		{"a.yaml", "", ""},
	}
	rt := render.Functions{Functions: append(testFunctions[:len(testFunctions):len(testFunctions)], plant)}
	for _, tc := range tests {
		t.Run(tc.in+":"+tc.path, func(t *testing.T) {
			t.Parallel()
			files := in.Clone()
			step := "  - image: ghcr.io/kptkit/plant\n    configMap: {path: '" + tc.path + "'}\n"
			files["Kptfile"] = []byte(pipeline("root"))
			if tc.in == "" {
				files["Kptfile"] = []byte(pipeline("root", step))
			} else {
				files[tc.in+"/Kptfile"] = []byte(pipeline(tc.in, step))
			}
			out := render.Render(render.Input{Files: files}, render.Options{Runtime: rt})
			failure := ""
			if out.Failure != nil {
				failure = out.Failure.Error()
			}
			if failure != tc.failure {
				t.Errorf("failure:\n got %s\nwant %s", failure, tc.failure)
			}
			if tc.failure != "" {
				if out.Files != nil || out.Items != nil {
					t.Errorf("a failed render gives files %v", strs(out.Files))
				}
				return
			}
			want := files.Clone()
			p := tc.path
			if tc.in != "" {
				p = tc.in + "/" + p
			}
			old := ""
			if b, ok := files[p]; ok {
				old = string(b) + "---\n"
			}
			want[p] = []byte(old + planted)
			if diff := cmp.Diff(strs(want), strs(out.Files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}
