// The examples are executable specifications: this test runs every example
// package through the real kpt (or kustomize) binary, compares the change
// with .expected/diff.patch (or .expected/output.yaml), and runs it again to
// prove that the second run changes nothing.
//
// An example's .expected/config.yaml says how to run it:
//
//	command: render          # render | eval | kustomize | script
//	fn: set-package-context  # eval: the function to run with --exec
//	fnConfig: fn-config.yaml # eval: --fn-config, a file of the package
//	args: [env=prod]         # eval: key=value arguments after --
//	runs: 2                  # how many runs (default 2)
//	exitCode: 0              # expected exit code of every run
//	stderr: [some text]      # texts the first run's stderr must contain
//	needs: [kptkit]          # more binaries to build (the example's own function always is)
//
// `script` runs .expected/exec.sh with bash in the package folder, with the
// function binaries first on PATH and $BIN naming their folder.
//
// Packages are copied to a temporary folder laid out like the repository
// (bin/ next to examples/), so that relative exec paths (../../bin/<fn>)
// resolve as they do for a user in a checkout after `make build`.
// `go test -update` rewrites the expected files.
package examples_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

var update = flag.Bool("update", false, "rewrite the examples' expected files")

type config struct {
	Command  string   `yaml:"command"`
	Fn       string   `yaml:"fn"`
	FnConfig string   `yaml:"fnConfig"`
	Args     []string `yaml:"args"`
	Runs     int      `yaml:"runs"`
	ExitCode int      `yaml:"exitCode"`
	Stderr   []string `yaml:"stderr"`
	Needs    []string `yaml:"needs"`
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
	builds  sync.Map // binary name → *build
)

type build struct {
	once sync.Once
	err  error
}

// binaries returns the folder the binaries go to, building the ones named
// (each once per test run): function names, or "kptkit".
func binaries(t *testing.T, names ...string) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kptkit-e2e-bin-")
		binDir, binErr = filepath.Join(dir, "bin"), err
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	for _, name := range names {
		pkg := "../functions/" + name
		if name == "kptkit" {
			pkg = "../cmd/kptkit"
		}
		v, _ := builds.LoadOrStore(name, &build{})
		b := v.(*build)
		b.once.Do(func() {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, name), pkg)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			}
		})
		if b.err != nil {
			t.Fatal(b.err)
		}
	}
	return binDir
}

// functionOf returns the function an example is named after
// (<function>-<case>), or kptkit for the CLI's own examples.
func functionOf(t *testing.T, example string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join("..", "functions", "*", "main.go"))
	best := ""
	for _, d := range dirs {
		fn := filepath.Base(filepath.Dir(d))
		if strings.HasPrefix(example, fn+"-") && len(fn) > len(best) {
			best = fn
		}
	}
	if best == "" {
		return "kptkit" // the CLI's own examples (fleet): it builds kptkit
	}
	return best
}

// tool finds a binary the examples need, or fails the test saying how to
// install it.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p, err := filepath.Abs(filepath.Join("..", ".tools", "bin", name)); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("%s not found on PATH or in .tools/bin: run `make tools` (see README)", name)
	return ""
}

func TestExamples(t *testing.T) {
	cfgs, err := filepath.Glob(filepath.Join("*", ".expected", "config.yaml"))
	if err != nil || len(cfgs) == 0 {
		t.Fatalf("no examples found (want examples/<name>/.expected/config.yaml)")
	}
	for _, cfgPath := range cfgs {
		name := filepath.Dir(filepath.Dir(cfgPath))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runExample(t, name)
		})
	}
}

func runExample(t *testing.T, name string) {
	var cfg config
	b, err := os.ReadFile(filepath.Join(name, ".expected", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s/.expected/config.yaml: %v", name, err)
	}
	if cfg.Runs == 0 {
		cfg.Runs = 2
	}
	bin := binaries(t, append([]string{functionOf(t, name)}, cfg.Needs...)...)
	root := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}
	pristine := filepath.Join(root, "orig", name)
	work := filepath.Join(root, "examples", name)
	for _, dst := range []string{pristine, work} {
		if err := copyPackage(name, dst); err != nil {
			t.Fatal(err)
		}
	}
	var first []byte
	for run := 1; run <= cfg.Runs; run++ {
		before := snapshot(t, work)
		stdout, stderr, code := runOnce(t, cfg, bin, name, work)
		if code != cfg.ExitCode {
			t.Fatalf("run %d: exit code %d, want %d\nstderr:\n%s", run, code, cfg.ExitCode, stderr)
		}
		if run == 1 {
			for _, s := range cfg.Stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("run 1: stderr does not contain %q:\n%s", s, stderr)
				}
			}
		}
		if cfg.Command == "kustomize" {
			if run == 1 {
				first = stdout
				compareFile(t, filepath.Join(name, ".expected", "output.yaml"), stdout)
			} else if !bytes.Equal(first, stdout) {
				t.Errorf("run %d: kustomize output differs from run 1:\n%s", run, cmp.Diff(string(first), string(stdout)))
			}
			continue
		}
		if run == 1 {
			compareFile(t, filepath.Join(name, ".expected", "diff.patch"), diff(t, root, name))
		} else if diff := cmp.Diff(before, snapshot(t, work)); diff != "" {
			t.Errorf("run %d changed the package (-before +after):\n%s", run, diff)
		}
	}
}

func runOnce(t *testing.T, cfg config, bin, name, work string) (stdout []byte, stderr string, code int) {
	t.Helper()
	var cmd *exec.Cmd
	switch cfg.Command {
	case "render":
		cmd = exec.Command(tool(t, "kpt"), "fn", "render", "--allow-exec", "--truncate-output=false")
	case "eval":
		args := []string{"fn", "eval", "--exec", filepath.Join("..", "..", "bin", cfg.Fn), "--truncate-output=false"}
		if cfg.FnConfig != "" {
			args = append(args, "--fn-config", cfg.FnConfig)
		}
		if len(cfg.Args) > 0 {
			args = append(append(args, "--"), cfg.Args...)
		}
		cmd = exec.Command(tool(t, "kpt"), args...)
	case "kustomize":
		cmd = exec.Command(tool(t, "kustomize"), "build", "--enable-alpha-plugins", "--enable-exec", ".")
	case "script":
		script, err := filepath.Abs(filepath.Join(name, ".expected", "exec.sh"))
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("bash", "-euo", "pipefail", script)
	default:
		t.Fatalf("%s: unknown command %q (want render, eval, kustomize or script)", name, cfg.Command)
	}
	cmd.Dir = work
	path := bin + string(os.PathListSeparator) + filepath.Dir(tool(t, "kpt")) + string(os.PathListSeparator) + os.Getenv("PATH")
	cmd.Env = append(os.Environ(), "PATH="+path, "BIN="+bin, "SOURCE_DATE_EPOCH=1767225600")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", cmd, err)
	}
	return out.Bytes(), errb.String(), code
}

// diff returns the change from the pristine copy to the run one as a patch
// with paths relative to the package.
func diff(t *testing.T, root, name string) []byte {
	t.Helper()
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--no-ext-diff", "--no-renames", "--",
		filepath.Join("orig", name), filepath.Join("examples", name))
	cmd.Dir = root
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && exitErr.ExitCode() == 1) {
		t.Fatalf("git diff: %v", err)
	}
	s := strings.ReplaceAll(string(out), "a/orig/"+name+"/", "a/")
	s = strings.ReplaceAll(s, "b/examples/"+name+"/", "b/")
	s = strings.ReplaceAll(s, "b/orig/"+name+"/", "b/")
	s = strings.ReplaceAll(s, "a/examples/"+name+"/", "a/")
	return []byte(s)
}

func compareFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./examples -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

// snapshot reads every file of a package.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// copyPackage copies an example, without its .expected folder.
func copyPackage(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".expected" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm()|0o200)
	})
}
