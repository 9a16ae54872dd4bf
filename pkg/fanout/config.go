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
	// Selectors are the targets' checked selectors, by target index (the
	// zero Selector for a repositories target).
	Selectors []selector.Selector
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

// resultf returns a result about a field of the set ("" for the set as a
// whole), its message led by the set's name.
func (s *Set) resultf(sev result.Severity, field, format string, args ...any) result.Result {
	return s.cfg.Header.Attach(result.New(sev, "%s: %s", &s.cfg, fmt.Sprintf(format, args...)).WithField(field))
}

func (s *Set) errorf(field, format string, args ...any) result.Result {
	return s.resultf(result.SeverityError, field, format, args...)
}

func (s *Set) warningf(field, format string, args ...any) result.Result {
	return s.resultf(result.SeverityWarning, field, format, args...)
}

func (s *Set) infof(format string, args ...any) result.Result {
	return s.resultf(result.SeverityInfo, "", format, args...)
}

// errorResults returns an error result for each problem, whose Msg is its whole text.
func (s *Set) errorResults(errs []decode.Error) []result.Result {
	rs := make([]result.Result, 0, len(errs))
	for _, e := range errs {
		rs = append(rs, s.errorf(e.Path, "%s", e.Msg))
	}
	return rs
}

// SetFrom reads and checks the PackageVariantSet of the functionConfig. It
// returns nil and no results when there is no config; any problem comes back
// as results, all of them, and a nil Set.
func SetFrom(c *krmfn.Config, rl *resourcelist.ResourceList) (*Set, []result.Result) {
	if c == nil {
		return nil, nil
	}
	if _, ok, bad := c.Match(porch.TypePackageVariantSet); !ok {
		return nil, []result.Result{bad}
	}
	s := &Set{cfg: *c}
	s.cfg.Header.Path = configPath(c, rl)
	var unknown []decode.Error
	if rs := s.cfg.Decode(&s.PackageVariantSet, decode.Options{Unknown: &unknown}); len(rs) > 0 {
		return nil, rs
	}
	// Porch's API server drops a field its schema lacks: say so.
	var warnings []result.Result
	for _, u := range unknown {
		if strings.HasPrefix(u.Path, "spec.") {
			warnings = append(warnings, s.warningf(u.Path, "%s: %s: Porch's PackageVariantSet has no such field and ignores it", u.Path, u.Msg))
		}
	}
	s.UpstreamNode = field(field(c.Node.YNode(), "spec"), "upstream")
	var errs []decode.Error
	s.Dir, errs = dirOf(s.Metadata.Annotations)
	errs = append(errs, validate(&s.PackageVariantSet)...)
	var sErrs []decode.Error
	s.Selectors, sErrs = selectors(s.Spec.Targets)
	errs = append(errs, sErrs...)
	if len(errs) > 0 {
		return nil, append(s.errorResults(errs), warnings...)
	}
	return s, warnings
}

// configPath returns the file of the set: its own path annotation, or that of
// the item it was read from (kpt fn eval --fn-config leaves the file in the
// items but gives the functionConfig no path).
func configPath(c *krmfn.Config, rl *resourcelist.ResourceList) string {
	if c.Header.Path != "" {
		return c.Header.Path
	}
	h := c.Header
	same := rl.SelectKind(h.APIVersion, h.Kind, func(o resourcelist.Header) bool {
		return o.Name == h.Name && scope(o.Namespace) == scope(h.Namespace) && o.Path != ""
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
