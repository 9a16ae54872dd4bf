package pipeline

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/result"
)

// Accepted functionConfig kinds.
var (
	KindPackageVariant  = porch.TypePackageVariant
	KindPrependPipeline = v1alpha1.TypePrependPipeline
)

// Prepend is what to do to the Kptfile, whatever config it came from: the
// owner's functions, to put at the front of each list.
type Prepend struct {
	Owner      string
	Mutators   []*yaml.Node
	Validators []*yaml.Node
}

// empty reports whether there are no functions to add.
func (p Prepend) empty() bool { return len(p.Mutators) == 0 && len(p.Validators) == 0 }

// PrependFrom reads the functions to prepend out of a functionConfig: a
// PackageVariant (owner metadata.name, functions spec.pipeline) or a
// PrependPipeline (owner, pipeline). Problems come back as results.
func PrependFrom(c *krmfn.Config) (Prepend, bool, []result.Result) {
	if c == nil {
		return Prepend{}, false, nil
	}
	kind, ok, bad := c.Match(KindPackageVariant, KindPrependPipeline)
	if !ok {
		return Prepend{}, false, []result.Result{bad}
	}
	var (
		p     Prepend
		rs    []result.Result
		errs  []decode.Error
		pl    *kptfile.Pipeline
		field fieldpath.Path
	)
	if kind == KindPackageVariant {
		var pv porch.PackageVariant
		rs = c.Decode(&pv, decode.Options{})
		p.Owner, pl, field = pv.Metadata.Name, pv.Spec.Pipeline, fieldpath.Path{"spec", "pipeline"}
		if p.Owner == "" {
			errs = append(errs, decode.Error{Path: "metadata.name", Msg: "is required: it names the functions this PackageVariant adds"})
		} else {
			errs = append(errs, v1alpha1.ValidateOwner(p.Owner, "metadata.name")...)
		}
	} else {
		var pp v1alpha1.PrependPipeline
		rs = c.Decode(&pp, decode.Options{KnownFields: true})
		pp.Default()
		p.Owner, pl, field = pp.Owner, pp.Pipeline, fieldpath.Path{"pipeline"}
		errs = append(errs, pp.Validate()...)
	}
	if pl != nil {
		p.Mutators, p.Validators = pl.Mutators, pl.Validators
		errs = append(errs, validateFunctions(p.Mutators, field.Child("mutators"))...)
		errs = append(errs, validateFunctions(p.Validators, field.Child("validators"))...)
	}
	for _, err := range errs {
		rs = append(rs, c.Errorf(err.Path, "%s: %s", c, err))
	}
	return p, true, rs
}

// validateFunctions checks the Kptfile function entries to add: each a
// mapping with an image or an exec, and a name without ".".
func validateFunctions(fns []*yaml.Node, field fieldpath.Path) []decode.Error {
	var errs []decode.Error
	for i, fn := range fns {
		path := field.Index(i).String()
		if fn.Kind != yaml.MappingNode {
			errs = append(errs, decode.Error{Path: path, Msg: "must be a mapping (a Kptfile function entry)"})
			continue
		}
		rn := yaml.NewRNode(fn)
		name := fieldpath.Lookup(rn, fieldpath.Path{"name"})
		switch {
		case name == nil || yaml.IsMissingOrNull(name):
		case name.YNode().Kind != yaml.ScalarNode:
			errs = append(errs, decode.Error{Path: path + ".name", Msg: "must be a string"})
		case strings.Contains(name.YNode().Value, "."):
			errs = append(errs, decode.Error{Path: path + ".name", Msg: fmt.Sprintf("function name %q must not contain \".\"", name.YNode().Value)})
		}
		_, image := fieldpath.String(rn, fieldpath.Path{"image"})
		_, exec := fieldpath.String(rn, fieldpath.Path{"exec"})
		if !image && !exec {
			errs = append(errs, decode.Error{Path: path, Msg: `must specify "image" or "exec"`})
		}
	}
	return errs
}
