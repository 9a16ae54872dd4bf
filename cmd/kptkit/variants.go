package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/pkgdir"
	"github.com/kptkit/kptkit/pkg/result"
)

func init() {
	commands["variants"] = command{
		summary: "render a fleet of package variants locally (variants render --help)",
		run:     runVariants,
	}
}

const variantsUsage = `Usage: kptkit variants render --variants PATH --upstream DIR --out DIR [--cluster PATH]

Renders, without a cluster, what Porch would make of PackageVariantSets and
PackageVariants: each set is expanded over the cluster's objects
(fan-out-variants), then every variant's upstream package is copied to
OUT/<downstream repo>/<downstream package>/ with its package context set
(name, spec.packageContext), its pipeline prepended (spec.pipeline) and its
injection points filled (spec.injectors) from the cluster's objects.

--variants and --cluster take YAML files or folders of them. --upstream is a
folder of packages (each folder holding a Kptfile is a package, named by its
path below --upstream), or one package. Each rendered package replaces what
OUT held for it.

Flags:
`

func runVariants(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "render" {
		fmt.Fprint(stderr, variantsUsage)
		return 2
	}
	fs := flag.NewFlagSet("kptkit variants render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, variantsUsage); fs.PrintDefaults() }
	variants := fs.String("variants", "", "PackageVariantSets and PackageVariants: a YAML file or a folder")
	cluster := fs.String("cluster", "", "the management cluster's objects: a YAML file or a folder")
	upstream := fs.String("upstream", "", "the upstream packages: a folder of packages, or one package")
	out := fs.String("out", "", "where the rendered packages go")
	if err := parseInterspersed(fs, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *variants == "" || *upstream == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	in, err := readFleet(*variants, *cluster, *upstream)
	if err != nil {
		fmt.Fprintf(stderr, "kptkit variants render: %v\n", err)
		return 1
	}
	rendered, rs := fleet.Render(in)
	failed := report(stderr, "", rs)
	for _, v := range rendered {
		if v.Files != nil {
			if err := writePackage(filepath.Join(*out, v.Repo, v.Package), v.Files); err != nil {
				fmt.Fprintf(stderr, "kptkit variants render: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "%s -> %s\n", v, filepath.Join(*out, v.Repo, v.Package))
		}
		failed = report(stderr, v.Name+": ", v.Results) || failed
	}
	fmt.Fprintf(stdout, "%d variants rendered into %s\n", len(rendered), *out)
	if failed {
		return 1
	}
	return 0
}

// report prints warnings and errors; it returns whether there was an error.
func report(w io.Writer, prefix string, rs result.List) bool {
	for _, r := range rs {
		if r.Severity != result.SeverityInfo {
			fmt.Fprintf(w, "%s%s\n", prefix, r.String())
		}
	}
	return rs.HasError()
}

func readFleet(variants, cluster, upstream string) (fleet.Input, error) {
	in := fleet.Input{Env: functions.Env(), Upstreams: map[string]pkgdir.Files{}}
	var err error
	if in.Variants, err = readObjects(variants); err != nil {
		return in, err
	}
	if cluster != "" {
		if in.Cluster, err = readObjects(cluster); err != nil {
			return in, err
		}
	}
	if in.Upstreams, err = readPackages(upstream); err != nil {
		return in, err
	}
	return in, nil
}

// readObjects reads every document of a YAML file, or of the YAML files
// below a folder.
func readObjects(root string) ([]*yaml.RNode, error) {
	files, err := readDir(root)
	if err != nil {
		return nil, err
	}
	var out []*yaml.RNode
	for _, p := range sortedKeys(files) {
		if !pkgdir.IsResource(p) {
			continue
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(files[p]), OmitReaderAnnotations: true}).Read()
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", filepath.Join(root, p), err)
		}
		out = append(out, nodes...)
	}
	return out, nil
}

// readPackages returns the packages below root by path (root itself, when
// it holds a Kptfile, by its base name).
func readPackages(root string) (map[string]pkgdir.Files, error) {
	files, err := readDir(root)
	if err != nil {
		return nil, err
	}
	pkgs := map[string]pkgdir.Files{}
	if _, ok := files[kptfile.FileName]; ok {
		pkgs[filepath.Base(filepath.Clean(root))] = files
		return pkgs, nil
	}
	for p := range files {
		if filepath.Base(p) != kptfile.FileName {
			continue
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		pkg := pkgdir.Files{}
		for q, b := range files {
			if rel, ok := strings.CutPrefix(q, dir+"/"); ok {
				pkg[rel] = b
			}
		}
		pkgs[dir] = pkg
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s holds no package (no Kptfile)", root)
	}
	return pkgs, nil
}

// readDir reads a file, or the files of the package (or folder of packages)
// below a folder, as kpt sees them (see packageFiles).
func readDir(root string) (map[string][]byte, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		b, err := os.ReadFile(root)
		return map[string][]byte{filepath.Base(root): b}, err
	}
	return pkgfs.Read(root)
}

// writePackage replaces dir with the package's files.
func writePackage(dir string, files pkgdir.Files) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for p, b := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
