package render

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// packagePathAnnotation is where kpt records which package an item belongs
// to while it renders (the package's absolute path).
const packagePathAnnotation = "internal.config.kubernetes.io/package-path"

// readTree reads every package's Kptfile and items, and checks every
// pipeline entry before any runs; all problems are reported at once. It
// returns the items as read (for the sink).
func (r *renderer) readTree(in Input) ([]*yaml.RNode, error) {
	files := in.Files.Layout()
	r.tree = packageTree{files: files, dirs: files.Packages(), fns: map[string][]Function{}, local: map[string][]*yaml.RNode{}}
	before, err := r.localItems(in)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, dir := range r.tree.dirs {
		r.pkgPath[r.annotationPath(dir)] = dir
		// The Kptfile as the caller left it among the items (a fleet's
		// variant edits it before rendering), else as the files hold it.
		kf, err := r.kptfileItem(dir), error(nil)
		if kf == nil {
			kf, err = yaml.Parse(string(in.Files[path.Join(dir, kptapi.FileName)]))
		}
		if err == nil {
			err = kptfile.Check(kf)
		}
		if err != nil {
			problems = append(problems, Problem{Package: dir, Field: "(file)", Reason: err.Error()})
			continue
		}
		fns, ps := ParsePipeline(dir, kf, r.configExists(dir))
		r.tree.fns[dir] = fns
		problems = append(problems, ps...)
	}
	if len(problems) == 0 {
		return before, nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Error()
	}
	return nil, &Failure{Message: strings.Join(msgs, "\n"), Problems: problems}
}

// kptfileItem returns the package's Kptfile among its items, or nil.
func (r *renderer) kptfileItem(dir string) *yaml.RNode {
	for _, n := range r.tree.local[dir] {
		if n.GetKind() == kptapi.Kind && filePath(n) == kptapi.FileName {
			return n
		}
	}
	return nil
}

// localItems sorts the tree's items into their packages, with paths
// relative to their package and the package-path annotation kpt adds, and
// returns the items as read (copies, when it read them itself).
func (r *renderer) localItems(in Input) ([]*yaml.RNode, error) {
	items, before := in.Items, in.Before
	if items == nil {
		var err error
		if items, err = r.tree.files.Resources("", true); err != nil {
			return nil, err
		}
		if before == nil {
			before = kptpkg.Copy(items)
		}
	}
	for _, n := range items {
		p := filePath(n)
		if err := kptpkg.CheckPath("file", p); err != nil {
			return nil, fmt.Errorf("%s: %w", describe(n), err)
		}
		dir := r.tree.files.PackageOf(folderOf(p))
		if dir != "" {
			p = strings.TrimPrefix(p, dir+"/")
		}
		for _, kv := range [][2]string{
			{kioutil.PathAnnotation, p},
			{kioutil.LegacyPathAnnotation, p}, //nolint:staticcheck // kpt sets both
			{packagePathAnnotation, r.annotationPath(dir)},
		} {
			if err := setAnnotation(n, kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
		r.tree.local[dir] = append(r.tree.local[dir], n)
	}
	return before, nil
}

// folderOf returns the folder of the file at p, "" for the root.
func folderOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// configExists checks a configPath of the package at dir as kpt does: it
// names a file of the package's resources that holds one resource.
func (r *renderer) configExists(dir string) func(string) error {
	var byPath map[string][]*yaml.RNode
	return func(p string) error {
		if byPath == nil {
			byPath = map[string][]*yaml.RNode{}
			for _, n := range r.tree.local[dir] {
				np := path.Clean(filePath(n))
				byPath[np] = append(byPath[np], n)
			}
		}
		found := byPath[p]
		switch {
		case len(found) == 0:
			return fmt.Errorf("functionConfig must exist in the current package")
		case len(found) > 1:
			return fmt.Errorf("functionConfig %q must not contain more than one config, got %d", p, len(found))
		}
		if err := isKRM(found[0]); err != nil {
			return fmt.Errorf("functionConfig %q: %s", p, err)
		}
		return nil
	}
}

// isKRM checks that a resource has what kpt requires of one: apiVersion,
// kind and metadata.name (kustomization files aside).
func isKRM(n *yaml.RNode) error {
	if isKustomization(n) {
		return nil
	}
	switch {
	case n.GetApiVersion() == "" && n.GetKind() == "" && n.GetName() == "":
		return fmt.Errorf("resource must have `apiVersion`, `kind`, and `name`")
	case n.GetApiVersion() == "":
		return fmt.Errorf("resource must have `apiVersion`")
	case n.GetKind() == "":
		return fmt.Errorf("resource must have `kind`")
	case n.GetName() == "":
		return fmt.Errorf("resource must have `metadata.name`")
	}
	return nil
}

// areKRM checks every item, naming the file of the first that fails.
func areKRM(items []*yaml.RNode) error {
	for _, n := range items {
		if err := isKRM(n); err != nil {
			return fmt.Errorf("%s: %s", filePath(n), err)
		}
	}
	return nil
}

// isKustomization reports whether kpt leaves the item out of its checks:
// a kustomization file.
func isKustomization(n *yaml.RNode) bool {
	switch path.Base(filePath(n)) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	api := n.GetApiVersion()
	return strings.HasPrefix(api, "kustomize.config.k8s.io") || (api == "" && n.GetKind() == "Kustomization")
}
