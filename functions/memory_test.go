package functions_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// scalarList is a ResourceList whose one ConfigMap holds a plain string
// scalar of n bytes (a sentence over and over, as a big embedded file),
// with the Kptfile and functionConfig given.
func scalarList(n int, fnConfig string) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString("- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: app\n    annotations:\n      config.kubernetes.io/local-config: \"true\"\n      config.kubernetes.io/path: 'Kptfile'\n")
	b.WriteString("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: big\n    annotations:\n      config.kubernetes.io/path: 'big.yaml'\n  data:\n    big: ")
	const sentence = "the quick brown fox jumps over the lazy dog "
	b.WriteString(strings.Repeat(sentence, n/len(sentence)))
	b.WriteString("end\n")
	b.WriteString(fnConfig)
	return b.Bytes()
}

// TestPeakMemory runs function binaries over a ResourceList holding a
// 64 MiB string scalar: each holds at most three times its input beyond
// what it holds for a tiny one (its base, measured first: some 8 to 11
// MB), where apply-stack held six times as much and more.
func TestPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two functions and runs them over 64 MiB")
	}
	if gnuTime == "" {
		t.Skip("needs GNU time (/usr/bin/time): a binary's own peak, not its parent's")
	}
	bin := buildBinaries(t, "./apply-stack", "./set-package-context")
	contextConfig := "functionConfig:\n  apiVersion: fn.kptkit.dev/v1alpha1\n  kind: SetPackageContext\n  metadata:\n    name: context\n  create: true\n  data:\n    cluster-name: edge01\n"
	for _, c := range []struct{ fn, config string }{{"apply-stack", ""}, {"set-package-context", contextConfig}} {
		path := filepath.Join(bin, c.fn)
		base := runBinary(t, path, scalarList(1<<10, c.config)).peakKB
		in := scalarList(64<<20, c.config)
		peak := runBinary(t, path, in).peakKB
		limit := 3*int64(len(in))/1024 + base
		t.Logf("%s: %d KB for a %d KB input, %d KB for a tiny one (at most %d KB)", c.fn, peak, len(in)/1024, base, limit)
		if peak > limit {
			t.Errorf("%s: a %d KB input peaks at %d KB, more than 3 times it plus %d KB", c.fn, len(in)/1024, peak, base)
		}
	}
}
