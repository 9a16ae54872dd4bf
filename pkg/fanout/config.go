package fanout

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/selector"
)

// KindPackageVariantSet is the accepted functionConfig kind.
var KindPackageVariantSet = porch.TypePackageVariantSet

// AnnotationDir, on the PackageVariantSet, names the folder new children
// are written to (DefaultDir when absent).
const (
	AnnotationDir = "kptkit.dev/packagevariants-dir"
	DefaultDir    = "packagevariants"
)

// DefaultNamespace is the namespace of a set, or an object, that names none.
const DefaultNamespace = "default"

// Set is a checked PackageVariantSet, ready to expand.
type Set struct {
	porch.PackageVariantSet
	// UpstreamNode is spec.upstream as written: children copy its revision
	// scalar as it is (a number or a string).
	UpstreamNode *yaml.Node
	// Dir is the folder new children are written to.
	Dir string
	// Selectors are the targets' checked selectors, by target index.
	Selectors map[int]selector.Selector
	// cfg is the functionConfig, located at the set's file for results.
	cfg krmfn.Config
}

// Namespace is the set's namespace for scoping: "default" when it names none.
func (s *Set) Namespace() string { return scope(s.Metadata.Namespace) }

func scope(ns string) string {
	if ns == "" {
		return DefaultNamespace
	}
	return ns
}

// errorf returns an error result about a field of the set.
func (s *Set) errorf(field, format string, args ...any) result.Result {
	return s.cfg.Errorf(field, "%s: %s", &s.cfg, fmt.Sprintf(format, args...))
}

// warningf returns a warning result about a field of the set.
func (s *Set) warningf(field, format string, args ...any) result.Result {
	return s.cfg.Header.Attach(result.Warningf("%s: %s", &s.cfg, fmt.Sprintf(format, args...)).WithField(field))
}

// infof returns an info result about the set.
func (s *Set) infof(format string, args ...any) result.Result {
	return s.cfg.Header.Attach(result.Infof("%s: %s", &s.cfg, fmt.Sprintf(format, args...)))
}

// SetFrom reads and checks the PackageVariantSet of the functionConfig. It
// returns nil and no results when there is no config; any problem comes back
// as results, all of them, and a nil Set.
func SetFrom(c *krmfn.Config, rl *resourcelist.ResourceList) (*Set, []result.Result) {
	if c == nil {
		return nil, nil
	}
	if _, ok, bad := c.Match(KindPackageVariantSet); !ok {
		return nil, []result.Result{bad}
	}
	s := &Set{cfg: *c}
	s.cfg.Header.Path = configPath(c, rl)
	if rs := s.cfg.Decode(&s.PackageVariantSet, decode.Options{}); len(rs) > 0 {
		return nil, rs
	}
	s.UpstreamNode = field(field(c.Node.YNode(), "spec"), "upstream")
	var errs []decode.Error
	s.Dir, errs = dirOf(s.Metadata.Annotations)
	errs = append(errs, validate(&s.PackageVariantSet)...)
	var sErrs []decode.Error
	s.Selectors, sErrs = selectors(s.Spec.Targets)
	errs = append(errs, sErrs...)
	if len(errs) == 0 {
		return s, nil
	}
	rs := make([]result.Result, 0, len(errs))
	for _, e := range errs {
		rs = append(rs, s.errorf(e.Path, "%s", e.Msg))
	}
	return nil, rs
}

// configPath returns the file of the set: its own path annotation, or that of
// the item it was read from (kpt fn eval --fn-config leaves the file in the
// items but gives the functionConfig no path).
func configPath(c *krmfn.Config, rl *resourcelist.ResourceList) string {
	if c.Header.Path != "" {
		return c.Header.Path
	}
	h := c.Header
	same := rl.Select(func(o resourcelist.Header) bool {
		return o.Is(h.APIVersion, h.Kind) && o.Name == h.Name && scope(o.Namespace) == scope(h.Namespace) && o.Path != ""
	})
	if len(same) == 1 {
		return same[0].Header().Path
	}
	return ""
}

// dirOf reads the folder for new children from the set's annotations.
func dirOf(annotations map[string]string) (string, []decode.Error) {
	dir, ok := annotations[AnnotationDir]
	if !ok {
		return DefaultDir, nil
	}
	field := "metadata.annotations." + AnnotationDir
	switch {
	case dir == "":
		return "", []decode.Error{{Path: field, Msg: fmt.Sprintf("%s must not be empty (use \".\" for the package root)", field)}}
	case path.IsAbs(dir) || path.Clean(dir) != dir || slices.Contains(strings.Split(dir, "/"), ".."):
		return "", []decode.Error{{Path: field, Msg: fmt.Sprintf("%s must be a clean relative folder inside the package, not %q", field, dir)}}
	}
	return dir, nil
}
