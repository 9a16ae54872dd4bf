package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{"no arguments", []string{"kptkit"}, 2, nil, "Usage:"},
		{"help lists every function with its summary", []string{"kptkit", "help"}, 0,
			[]string{"set-package-context    Sets and removes keys of a kpt package's context", "prepend-pipeline       Puts an owner's functions"}, ""},
		{"unknown command", []string{"kptkit", "frobnicate"}, 2, nil, `unknown command "frobnicate"`},
		{"a function's help is its README", []string{"kptkit", "set-package-context", "--help"}, 0, []string{"# set-package-context\n", "## functionConfig"}, ""},
		{"multi-call: kptkit installed under a function's name", []string{"/usr/local/bin/prepend-pipeline", "--help"}, 0, []string{"# prepend-pipeline\n"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &out, &errb)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout does not contain %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errb.String(), tc.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.wantStderr, errb.String())
			}
		})
	}
}
