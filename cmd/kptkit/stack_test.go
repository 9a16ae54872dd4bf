package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stackPackage writes a package with a Stack (as apply-stack leaves it) to
// a temporary folder.
func stackPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: s1\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
		"package.yaml": "apiVersion: influxdata.com/v2alpha1\nkind: Label\nmetadata:\n  name: lucid_einstein\nspec:\n  name: label_1\n---\n" +
			"apiVersion: influxdata.com/v2alpha1\nkind: Bucket\nmetadata:\n  name: pristine_noir\n  annotations:\n    team: obs\nspec:\n  name: bucket_1\n  association:\n  - kind: Label\n    name: lucid_einstein\n",
		"stack.yaml": `apiVersion: fn.kptkit.dev/v1alpha1
kind: Stack
metadata:
  name: s1
  annotations:
    config.kubernetes.io/local-config: "true"
status:
  stackID: de383e24b3ccca86
  createdAt: "2026-01-01T10:00:00Z"
  updatedAt: "2026-01-03T10:00:00Z"
  revision: 2
  config: {source: "git"}
  resources:
  - apiVersion: influxdata.com/v2alpha1
    kind: Label
    id: d3b6d10d5a224169
    pkgName: lucid_einstein
    associations: []
    checksum: sha256:1
  - apiVersion: influxdata.com/v2alpha1
    kind: Bucket
    id: 797ae7e6b9f7006a
    pkgName: pristine_noir
    associations:
    - kind: Label
      pkgName: lucid_einstein
    checksum: sha256:2
`,
		"ignored/skip.yaml": "kind: ConfigMap\nmetadata: {name: ignored}\n",
		".hidden/skip.yaml": "kind: ConfigMap\nmetadata: {name: hidden}\n",
		".krmignore":        "ignored/\n.hidden/\n", // kpt reads hidden folders unless ignored
		"notes.txt":         "not a resource\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runStackCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"kptkit", "stack"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestStackShow(t *testing.T) {
	t.Parallel()
	dir := stackPackage(t)
	out, stderr, code := runStackCmd(t, "show", "--table", dir)
	want := `Stack s1 (id de383e24b3ccca86), created 2026-01-01T10:00:00Z, updated 2026-01-03T10:00:00Z, revision 2

ID                KIND    NAMESPACE  NAME            ASSOCIATIONS
d3b6d10d5a224169  Label   -          lucid_einstein  -
797ae7e6b9f7006a  Bucket  -          pristine_noir   Label/lucid_einstein
`
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStackShowYAML(t *testing.T) {
	t.Parallel()
	dir := stackPackage(t)
	out, stderr, code := runStackCmd(t, "show", dir)
	want := `stack_id: de383e24b3ccca86
createdAt: "2026-01-01T10:00:00Z"
updatedAt: "2026-01-03T10:00:00Z"
config:
  source: git
resources:
- apiVersion: influxdata.com/v2alpha1
  kind: Label
  id: d3b6d10d5a224169
  pkgName: lucid_einstein
  associations: []
  checksum: sha256:1
- apiVersion: influxdata.com/v2alpha1
  kind: Bucket
  id: 797ae7e6b9f7006a
  pkgName: pristine_noir
  associations:
  - kind: Label
    pkgName: lucid_einstein
  checksum: sha256:2
`
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStackShowJSON(t *testing.T) {
	t.Parallel()
	dir := stackPackage(t)
	out, stderr, code := runStackCmd(t, "show", "--json", "--stack", "s1", filepath.Join(dir, "stack.yaml"))
	want := `{
  "stack_id": "de383e24b3ccca86",
  "createdAt": "2026-01-01T10:00:00Z",
  "updatedAt": "2026-01-03T10:00:00Z",
  "config": {
    "source": "git"
  },
  "resources": [
    {
      "apiVersion": "influxdata.com/v2alpha1",
      "kind": "Label",
      "id": "d3b6d10d5a224169",
      "pkgName": "lucid_einstein",
      "associations": [],
      "checksum": "sha256:1"
    },
    {
      "apiVersion": "influxdata.com/v2alpha1",
      "kind": "Bucket",
      "id": "797ae7e6b9f7006a",
      "pkgName": "pristine_noir",
      "associations": [
        {
          "kind": "Label",
          "pkgName": "lucid_einstein"
        }
      ],
      "checksum": "sha256:2"
    }
  ]
}
`
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStackExport(t *testing.T) {
	t.Parallel()
	dir := stackPackage(t)
	out, stderr, code := runStackCmd(t, "export", dir)
	want := "apiVersion: influxdata.com/v2alpha1\nkind: Label\nmetadata:\n  name: lucid_einstein\nspec:\n  name: label_1\n---\n" +
		"apiVersion: influxdata.com/v2alpha1\nkind: Bucket\nmetadata:\n  name: pristine_noir\n  annotations:\n    team: obs\nspec:\n  name: bucket_1\n  association:\n  - kind: Label\n    name: lucid_einstein\n"
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	target := filepath.Join(t.TempDir(), "pkg.json")
	if _, stderr, code := runStackCmd(t, "export", "-o", target, dir); code != 0 {
		t.Fatalf("export -o: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `[
  {
    "apiVersion": "influxdata.com/v2alpha1",
    "kind": "Label",
    "metadata": {
      "name": "lucid_einstein"
    },
    "spec": {
      "name": "label_1"
    }
  },
  {
    "apiVersion": "influxdata.com/v2alpha1",
    "kind": "Bucket",
    "metadata": {
      "name": "pristine_noir",
      "annotations": {
        "team": "obs"
      }
    },
    "spec": {
      "name": "bucket_1",
      "association": [
        {
          "kind": "Label",
          "name": "lucid_einstein"
        }
      ]
    }
  }
]
`
	if diff := cmp.Diff(wantJSON, string(b)); diff != "" {
		t.Errorf("export -o pkg.json (-want +got):\n%s", diff)
	}
}

func TestStackConvert(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "pkg.jsonnet")
	lib := "{ label(n):: { apiVersion: 'influxdata.com/v2alpha1', kind: 'Label', metadata: { name: n } } }"
	if err := os.WriteFile(filepath.Join(dir, "lib.libsonnet"), []byte(lib), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("local l = import 'lib.libsonnet';\n[l.label('a'), l.label('b')]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runStackCmd(t, "convert", src)
	want := "apiVersion: influxdata.com/v2alpha1\nkind: Label\nmetadata:\n  name: a\n---\napiVersion: influxdata.com/v2alpha1\nkind: Label\nmetadata:\n  name: b\n"
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	target := filepath.Join(dir, "pkg.yaml")
	out, stderr, code = runStackCmd(t, "convert", src, "-o", target)
	if code != 0 || stderr != "" || out != "" {
		t.Fatalf("convert -o: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	b, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("convert -o (-want +got):\n%s", diff)
	}
}

// TestStackErrors: mistakes name what the user gave (the path as given,
// the flag, the subcommand), whole messages compared.
func TestStackErrors(t *testing.T) {
	t.Parallel()
	dir := stackPackage(t)
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "Kptfile"), []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: empty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	usage := func(sub, msg string) string {
		return "kptkit stack " + sub + ": " + msg + "\nRun 'kptkit stack " + sub + " --help' for usage.\n"
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown subcommand", []string{"frobnicate"}, 2,
			"kptkit stack: unknown subcommand \"frobnicate\" (the subcommands are show, apply, diff, uninstall, convert, export)\nRun 'kptkit stack --help' for usage.\n"},
		{"bad flag", []string{"show", "--yaml"}, 2, usage("show", "unknown flag --yaml")},
		{"two forms", []string{"show", "--json", "--table"}, 2, usage("show", "--json and --table: choose one")},
		{"too many arguments", []string{"show", dir, "other"}, 2, usage("show", `unexpected argument "other"`)},
		{"no Stack", []string{"show", empty}, 1, "kptkit stack show: the package has no Stack: apply it with apply-stack first\n"},
		{"no such Stack", []string{"show", "--stack", "s2", dir}, 1, "kptkit stack show: the package has no Stack named \"s2\"\n"},
		{"the current folder is no package", []string{"show"}, 1,
			"kptkit stack show: the current folder is not a kpt package: it has no Kptfile (name the package folder)\n"},
		{"a folder that is no package", []string{"show", "testdata"}, 1, "kptkit stack show: testdata is not a kpt package: it has no Kptfile\n"},
		{"no such folder", []string{"export", "testdata/nope"}, 1, "kptkit stack export: cannot read testdata/nope: no such file or directory\n"},
		{"bad format", []string{"export", "--format", "toml", dir}, 2, usage("export", `--format "toml": want yaml or json`)},
		{"convert needs a file", []string{"convert"}, 2, usage("convert", "name the package file to convert")},
		{"convert names the path given", []string{"convert", "testdata/some/dir/nope.json"}, 1,
			"kptkit stack convert: cannot read testdata/some/dir/nope.json: no such file or directory\n"},
		{"convert a broken file", []string{"convert", filepath.Join(dir, "notes.txt")}, 1,
			"kptkit stack convert: cannot read " + filepath.Join(dir, "notes.txt") + ` as yaml: document 0 is the scalar "not a resource": want a resource (a mapping) or a list of them` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runStackCmd(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}
