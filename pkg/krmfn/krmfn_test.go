package krmfn_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

var env = krmfn.Env{Now: func() time.Time { return time.Unix(0, 0) }, Getenv: func(string) string { return "" }}

const input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"

func TestMain(t *testing.T) {
	t.Parallel()
	fail := krmfn.Function{Name: "fail", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Errorf("bad thing").WithField("spec.x").WithFile("a.yaml", 0), result.Infof("fine"))
		return nil
	}}
	crash := krmfn.Function{Name: "crash", Run: func(*resourcelist.ResourceList, krmfn.Env) error { panic("boom") }}
	goErr := krmfn.Function{Name: "goerr", Run: func(*resourcelist.ResourceList, krmfn.Env) error { return errors.New("cannot go on") }}
	tests := []struct {
		name       string
		f          krmfn.Function
		args       []string
		in         string
		wantCode   int
		wantOut    string // prefix of stdout
		wantStderr string // substring of stderr
	}{
		{"help", krmfn.Identity, []string{"--help"}, "", 0, "usage text\n", ""},
		{"bad argument", krmfn.Identity, []string{"--nope"}, "", 2, "", `unexpected argument "--nope"`},
		{"identity", krmfn.Identity, nil, input, 0, input, ""},
		{"error result", fail, nil, input, 1, input + "results:\n- message: bad thing\n", "fail: error: bad thing (field spec.x, file a.yaml)"},
		{"not yaml", krmfn.Identity, nil, "a: [", 1, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n", "cannot parse the input as YAML"},
		{"panic becomes a result", crash, nil, input, 1, input + "results:\n- message: 'internal error (please report it): boom'", "internal error"},
		{"go error becomes a result", goErr, nil, input, 1, input + "results:\n- message: cannot go on\n", "goerr: error: cannot go on"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := krmfn.Main(tc.f, "usage text\n", tc.args, strings.NewReader(tc.in), &out, &errb, env)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.wantCode, errb.String())
			}
			if !strings.HasPrefix(out.String(), tc.wantOut) {
				t.Errorf("stdout does not start with the expected text:\n%s", cmp.Diff(tc.wantOut, out.String()))
			}
			if !strings.Contains(errb.String(), tc.wantStderr) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tc.wantStderr)
			}
		})
	}
}

func TestConfigOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fc string
		none     bool
		kind     string
	}{
		{"no functionConfig", "", true, ""},
		{"empty function-input", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: function-input}\n", true, ""},
		{"function-input with data", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: function-input}\n  data: {a: b}\n", false, "ConfigMap"},
		{"empty ConfigMap of another name", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: mine}\n", false, "ConfigMap"},
		{"typed config", "functionConfig:\n  apiVersion: fn.kptkit.dev/v1alpha1\n  kind: SetPackageContext\n  metadata: {name: c}\n", false, "SetPackageContext"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rl, err := resourcelist.Parse([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n" + tc.fc))
			if err != nil {
				t.Fatal(err)
			}
			c := krmfn.ConfigOf(rl)
			if (c == nil) != tc.none {
				t.Fatalf("ConfigOf() = %v, want none=%v", c, tc.none)
			}
			if c != nil && c.Header.Kind != tc.kind {
				t.Errorf("kind %q, want %q", c.Header.Kind, tc.kind)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	rl, err := resourcelist.Parse([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: SetLabels\n  metadata:\n    name: l\n    annotations: {config.kubernetes.io/path: fn.yaml}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := krmfn.Kind{APIVersion: "fn.kptkit.dev/v1alpha1", Kind: "A"}
	_, ok, bad := krmfn.ConfigOf(rl).Match(a, krmfn.ConfigMap)
	want := result.Result{
		Severity:    result.SeverityError,
		Message:     `functionConfig kind SetLabels (apiVersion "fn.kpt.dev/v1alpha1") is not supported: accepted kinds are A (fn.kptkit.dev/v1alpha1), ConfigMap (v1)`,
		ResourceRef: &result.ResourceRef{APIVersion: "fn.kpt.dev/v1alpha1", Kind: "SetLabels", Name: "l"},
		Field:       &result.Field{Path: "kind"},
		File:        &result.File{Path: "fn.yaml"},
	}
	if ok {
		t.Fatal("Match accepted SetLabels")
	}
	if diff := cmp.Diff(want, bad); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
}

// An input of several chunks is read whole (Main reads stdin in growing
// chunks, however short the reads), and an untouched one comes out as it
// went in.
func TestMainLargeInput(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	in.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i := 0; in.Len() < 3<<20; i++ {
		fmt.Fprintf(&in, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-%d\n", i)
	}
	var out, errb bytes.Buffer
	if code := krmfn.Main(krmfn.Identity, "", nil, iotest.HalfReader(strings.NewReader(in.String())), &out, &errb, env); code != 0 {
		t.Fatalf("exit code %d (stderr %q)", code, errb.String())
	}
	if out.String() != in.String() {
		t.Errorf("the output (%d bytes) is not the input (%d bytes)", out.Len(), in.Len())
	}
}

// A stdout that fails is an exit code of 1 and a line on stderr.
func TestMainStdoutFails(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	code := krmfn.Main(krmfn.Identity, "", nil, strings.NewReader(input), failingWriter{}, &errb, env)
	if want := "identity: cannot write stdout: disk full\n"; code != 1 || errb.String() != want {
		t.Errorf("exit code %d, stderr %q; want 1, %q", code, errb.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A ResourceList that writes a key twice in a mapping is refused whole, as
// kpt refuses input it cannot parse: no item comes out, exit code 1, a
// result for each key naming the item, its file and the field.
func TestMainDuplicateKeys(t *testing.T) {
	t.Parallel()
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/path: cm.yaml\n  data:\n    x: 1\n    x: 2\n" +
		"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: fc\n    name: fc2\n"
	var out, errb bytes.Buffer
	if code := krmfn.Main(krmfn.Identity, "", nil, strings.NewReader(in), &out, &errb, env); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	wantOut := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
results:
- message: 'functionConfig ConfigMap/fc: line 18: mapping key "name" already defined at line 17 (lines of the input ResourceList)'
  severity: error
  resourceRef:
    apiVersion: v1
    kind: ConfigMap
    name: fc
  field:
    path: metadata.name
- message: 'cm.yaml: ConfigMap/a: line 12: mapping key "x" already defined at line 11 (lines of the input ResourceList)'
  severity: error
  resourceRef:
    apiVersion: v1
    kind: ConfigMap
    name: a
  field:
    path: data.x
  file:
    path: cm.yaml
`
	if diff := cmp.Diff(wantOut, out.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	wantErr := `identity: error: functionConfig ConfigMap/fc: line 18: mapping key "name" already defined at line 17 (lines of the input ResourceList) (field metadata.name)
identity: error: cm.yaml: ConfigMap/a: line 12: mapping key "x" already defined at line 11 (lines of the input ResourceList) (field data.x)
`
	if diff := cmp.Diff(wantErr, errb.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// TestAppendProcess: AppendProcess appends to a buffer, past what it holds
// and over the stale bytes beyond, what Process writes, with the same
// results.
func TestAppendProcess(t *testing.T) {
	t.Parallel()
	fail := krmfn.Function{Name: "fail", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Errorf("bad thing"))
		return nil
	}}
	edit := krmfn.Function{Name: "edit", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
			it.Edit().SetLabels(map[string]string{"a": "b"})
		}
		return nil
	}}
	for _, tc := range []struct {
		name string
		f    krmfn.Function
		in   string
	}{
		{"identity", krmfn.Identity, input},
		{"an edit", edit, input},
		{"error result", fail, input},
		{"not yaml", krmfn.Identity, "a: ["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantOut, wantResults := krmfn.Process(tc.f, []byte(tc.in), env)
			dst := append(make([]byte, 0, 4096), "held\n"...)
			copy(dst[len(dst):cap(dst)], bytes.Repeat([]byte("stale "), 700))
			out, results := krmfn.AppendProcess(dst, tc.f, []byte(tc.in), env)
			if d := cmp.Diff("held\n"+string(wantOut), string(out)); d != "" {
				t.Errorf("output (-want +got):\n%s", d)
			}
			if d := cmp.Diff(wantResults.Errors(), results.Errors()); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
		})
	}
}
