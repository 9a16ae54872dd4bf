package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmtest"
)

// invocation is one command line and what it must give.
type invocation struct {
	args           []string
	code           int
	stdout, stderr string // whole outputs; "*" for any
}

func (inv invocation) check(t *testing.T) (stdout string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"kptkit"}, inv.args...), strings.NewReader(""), &out, &errb)
	if code != inv.code {
		t.Errorf("kptkit %s: exit %d, want %d\nstderr: %s", strings.Join(inv.args, " "), code, inv.code, errb.String())
	}
	if inv.stdout != "*" {
		if d := cmp.Diff(inv.stdout, out.String()); d != "" {
			t.Errorf("kptkit %s: stdout (-want +got):\n%s", strings.Join(inv.args, " "), d)
		}
	}
	if inv.stderr != "*" {
		if d := cmp.Diff(inv.stderr, errb.String()); d != "" {
			t.Errorf("kptkit %s: stderr (-want +got):\n%s", strings.Join(inv.args, " "), d)
		}
	}
	return out.String()
}

// TestOneVoice runs every command and subcommand with --help, an unknown
// subcommand and an unknown flag: help exits 0 with the usage and the flags
// on stdout, mistakes exit 2 naming what was wrong. The help texts are
// compared whole with testdata/help.txt (go test -update rewrites it).
func TestOneVoice(t *testing.T) {
	var help strings.Builder
	record := func(args []string, out string) {
		fmt.Fprintf(&help, "$ kptkit %s\n%s\n", strings.Join(args, " "), out)
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		out := invocation{args: args, stdout: "*", stderr: ""}.check(t)
		if args[0] == "help" {
			record(args, out)
		} else if out != usage() {
			t.Errorf("kptkit %s differs from kptkit help", args[0])
		}
	}
	invocation{args: nil, code: 2, stderr: usage()}.check(t)
	invocation{args: []string{"frobnicate"}, code: 2, stdout: "", stderr: "kptkit: unknown command \"frobnicate\"\nRun 'kptkit help' for usage.\n"}.check(t)
	invocation{args: []string{"--frobnicate"}, code: 2, stdout: "", stderr: "kptkit: unknown flag \"--frobnicate\"\nRun 'kptkit help' for usage.\n"}.check(t)
	record([]string{"version", "--help"}, invocation{args: []string{"version", "--help"}, stdout: "*", stderr: ""}.check(t))
	invocation{args: []string{"version", "now"}, code: 2, stdout: "", stderr: "kptkit version: unexpected argument \"now\": it takes none\nRun 'kptkit version --help' for usage.\n"}.check(t)
	invocation{args: []string{"version"}, stdout: "kptkit " + currentVersion() + "\n", stderr: ""}.check(t)

	for _, f := range registry {
		invocation{args: []string{f.Name, "--help"}, stdout: "*", stderr: ""}.check(t)
		invocation{args: []string{f.Name, "--version"}, stdout: f.Name + " " + currentVersion() + "\n", stderr: ""}.check(t)
		invocation{args: []string{f.Name, "--frobnicate"}, code: 2, stdout: "",
			stderr: f.Name + ": unexpected argument \"--frobnicate\": the function reads a ResourceList on stdin (see --help)\n"}.check(t)
	}

	for _, g := range commands {
		if g.subs == nil {
			continue
		}
		path := "kptkit " + g.name
		out := invocation{args: []string{g.name, "--help"}, stdout: "*", stderr: ""}.check(t)
		record([]string{g.name, "--help"}, out)
		for _, s := range g.subs {
			if !strings.Contains(out, "\n  "+s.name+" ") {
				t.Errorf("%s --help does not list %s:\n%s", path, s.name, out)
			}
		}
		invocation{args: []string{g.name, "help"}, stdout: out, stderr: ""}.check(t)
		invocation{args: []string{g.name}, code: 2, stdout: "", stderr: out}.check(t)
		invocation{args: []string{g.name, "frobnicate"}, code: 2, stdout: "",
			stderr: fmt.Sprintf("%s: unknown subcommand \"frobnicate\" (the subcommands are %s)\nRun '%s --help' for usage.\n", path, g.names(), path)}.check(t)
		invocation{args: []string{g.name, "--frobnicate"}, code: 2, stdout: "",
			stderr: fmt.Sprintf("%s: unknown flag \"--frobnicate\" (the subcommands are %s)\nRun '%s --help' for usage.\n", path, g.names(), path)}.check(t)
		for _, s := range g.subs {
			args := []string{g.name, s.name, "--help"}
			out := invocation{args: args, stdout: "*", stderr: ""}.check(t)
			record(args, out)
			if !strings.HasPrefix(out, "Usage: "+path+" "+s.name+" ") || !strings.Contains(out, "\nFlags:\n  -") {
				t.Errorf("%s %s --help prints no usage with flags:\n%s", path, s.name, out)
			}
			invocation{args: []string{g.name, s.name, "-h"}, stdout: out, stderr: ""}.check(t)
			invocation{args: []string{g.name, "help", s.name}, stdout: out, stderr: ""}.check(t)
			invocation{args: []string{"help", g.name}, stdout: "*", stderr: ""}.check(t)
			invocation{args: []string{g.name, s.name, "--frobnicate"}, code: 2, stdout: "",
				stderr: fmt.Sprintf("%s %s: unknown flag --frobnicate\nRun '%s %s --help' for usage.\n", path, s.name, path, s.name)}.check(t)
		}
	}

	// Commands without subcommands (kptkit render) keep the same promises:
	// help with flags, exit 0; an unknown flag named, exit 2.
	for _, cmd := range commands {
		if cmd.subs != nil {
			continue
		}
		name := cmd.name
		out := invocation{args: []string{name, "--help"}, stdout: "*", stderr: ""}.check(t)
		record([]string{name, "--help"}, out)
		if !strings.HasPrefix(out, "Usage: kptkit "+name) || !strings.Contains(out, "\nFlags:\n  -") {
			t.Errorf("kptkit %s --help prints no usage with flags:\n%s", name, out)
		}
		var out2, errb bytes.Buffer
		if code := run([]string{"kptkit", name, "--frobnicate"}, strings.NewReader(""), &out2, &errb); code != 2 || !strings.Contains(errb.String(), "frobnicate") {
			t.Errorf("kptkit %s --frobnicate: exit %d, want 2 and an error naming the flag:\n%s", name, code, errb.String())
		}
	}

	golden := filepath.Join("testdata", "help.txt")
	got := strings.ReplaceAll(help.String(), currentVersion(), "VERSION")
	if krmtest.Update() {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/kptkit -run TestOneVoice -update writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", golden, d)
	}
}

// TestFlagErrors: the flag package's messages, reworded with the flags
// written as the usage writes them.
func TestFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag --nope"},
		{[]string{"-x"}, "unknown flag -x"},
		{[]string{"--jobs", "many"}, `--jobs: invalid value "many": parse error`},
		{[]string{"--render=maybe"}, `--render: invalid boolean value "maybe": parse error`},
		{[]string{"--out"}, "flag --out needs a value"},
		{[]string{"-o"}, "flag -o needs a value"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(new(bytes.Buffer))
		fs.Int("jobs", 0, "")
		fs.Bool("render", true, "")
		fs.String("out", "", "")
		fs.String("o", "", "")
		err := parseInterspersed(fs, tc.args)
		if err == nil {
			t.Errorf("%v: no error", tc.args)
			continue
		}
		if got := flagError(err).Error(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// pairFlag reads KEY=VALUE pairs, the last value of a key winning; an empty
// VALUE only where the flag allows it (--env KEY=).
func TestPairFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		empty bool
		in    []string
		want  map[string]string
		err   string
	}{
		{in: []string{"a=1", "b=x=y", "a=2"}, want: map[string]string{"a": "2", "b": "x=y"}},
		{in: []string{"a="}, err: "want K=V"},
		{in: []string{"=1"}, err: "want K=V"},
		{in: []string{"novalue"}, err: "want K=V"},
		{empty: true, in: []string{"a="}, want: map[string]string{"a": ""}},
		{empty: true, in: []string{"=1"}, err: "want K=V"},
	} {
		p := &pairFlag{m: map[string]string{}, want: "K=V", empty: tt.empty}
		var err error
		for _, s := range tt.in {
			if err = p.Set(s); err != nil {
				break
			}
		}
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%v (empty %v): error %v, want %q", tt.in, tt.empty, err, tt.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tt.in, err)
		default:
			if diff := cmp.Diff(tt.want, p.m); diff != "" {
				t.Errorf("%v (-want +got):\n%s", tt.in, diff)
			}
		}
	}
}

// TestPrintFlagsDefaultOnce: a flag's default is told once: by its usage
// when that says it (images build --tag said "the version of this build",
// then "devel"), else on a line of its own when it is worth telling.
func TestPrintFlagsDefaultOnce(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.String("tag", "devel", "the images' `TAG` (default: the version of this build)")
	fs.String("platform", "linux/amd64", "comma-separated `PLATFORMS` to build for")
	fs.Duration("wait", 0, "wait up to `DURATION` (default: fail at once)")
	fs.Bool("insecure", false, "allow plain HTTP")
	fs.Int("jobs", 0, "`N` at once")
	var b bytes.Buffer
	printFlags(&b, fs)
	want := `
Flags:
  --insecure
      allow plain HTTP
  --jobs N
      N at once
  --platform PLATFORMS
      comma-separated PLATFORMS to build for
      (default linux/amd64)
  --tag TAG
      the images' TAG (default: the version of this build)
  --wait DURATION
      wait up to DURATION (default: fail at once)
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
