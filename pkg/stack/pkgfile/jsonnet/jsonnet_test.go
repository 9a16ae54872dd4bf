package jsonnet_test

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/stack/pkgfile/jsonnet"
)

func TestVM(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{
		"lib/l.libsonnet":      {Data: []byte("{ n: 1 }")},
		"lib/up.libsonnet":     {Data: []byte("import '../top.libsonnet'")},
		"top.libsonnet":        {Data: []byte("{ top: true }")},
		"lib/escape.libsonnet": {Data: []byte("import '../../x.libsonnet'")},
	}
	for _, tc := range []struct {
		name, src, want, err string
	}{
		{name: "p.jsonnet", src: "(import 'lib/l.libsonnet') + { m: 2 }", want: "{\n   \"m\": 2,\n   \"n\": 1\n}\n"},
		{name: "p.jsonnet", src: "import 'lib/up.libsonnet'", want: "{\n   \"top\": true\n}\n"},
		{name: "p.jsonnet", src: "import 'lib/escape.libsonnet'", err: "RUNTIME ERROR: cannot import \"../../x.libsonnet\": it is outside the package"},
		{name: "p.jsonnet", src: "import '/etc/passwd'", err: "RUNTIME ERROR: cannot import \"/etc/passwd\": imports must be relative to the importing file"},
		{name: "p.jsonnet", src: "std.extVar('HOME')", err: "RUNTIME ERROR: Undefined external variable: HOME"},
	} {
		got, err := jsonnet.VM{FS: files}.Evaluate(tc.name, []byte(tc.src))
		if tc.err != "" {
			if err == nil || len(err.Error()) < len(tc.err) || err.Error()[:len(tc.err)] != tc.err {
				t.Errorf("%s: error %v, want one starting with %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.src, diff)
		}
	}
	if _, err := (jsonnet.VM{}).Evaluate("p.jsonnet", []byte("import 'x.libsonnet'")); err == nil {
		t.Error("an import with no files: no error")
	}
}
