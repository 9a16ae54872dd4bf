package main

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseInterspersed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		wantJSON bool
		wantOut  string
		wantPos  []string
	}{
		{[]string{"pkg", "--json"}, true, "", []string{"pkg"}},
		{[]string{"--json", "pkg"}, true, "", []string{"pkg"}},
		{[]string{"a", "-o", "x", "b"}, false, "x", []string{"a", "b"}},
		{[]string{"a", "--", "--json"}, false, "", []string{"a", "--json"}},
		{nil, false, "", []string{}},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		asJSON := fs.Bool("json", false, "")
		out := fs.String("o", "", "")
		if err := parseInterspersed(fs, tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		got := append([]string{}, fs.Args()...)
		if *asJSON != tc.wantJSON || *out != tc.wantOut || !cmp.Equal(tc.wantPos, got) {
			t.Errorf("%v: json=%v o=%q args=%q", tc.args, *asJSON, *out, got)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := parseInterspersed(fs, []string{"a", "--nope"}); err == nil {
		t.Error("an unknown flag after a positional argument was accepted")
	}
}
