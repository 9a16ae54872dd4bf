package builtinfn

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/apply-setters/applysetters"
	"sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// applySettersNodes is ApplySetters with setterFilter in place of the
// catalog's applysetters.ApplySetters.Filter: the same config reading,
// results and messages (TestApplySettersCorpus, FuzzApplySetters).
var applySettersNodes framework.ResourceListProcessor = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	var s applysetters.ApplySetters
	applysetters.Decode(rl.FunctionConfig, &s)
	f := newSetterFilter(s.Setters)
	if err := f.filter(rl.Items); err != nil {
		rl.Results = framework.Results{{Message: "failed to apply setters: " + err.Error(), Severity: framework.Error}}
		return err
	}
	rl.Results = settersResults(f.results)
	return nil
})

// settersResults are apply-setters' results for the fields it set: one
// per field, or "no matches" for none.
func settersResults(rs []*applysetters.Result) framework.Results {
	if len(rs) == 0 {
		return framework.Results{{Message: "no matches for input setter(s)"}}
	}
	var out framework.Results
	for _, res := range rs {
		out = append(out, &framework.Result{
			Message: fmt.Sprintf("set field value to %q", res.Value),
			Field:   &framework.Field{Path: res.FieldPath},
			File:    &framework.File{Path: res.FilePath},
		})
	}
	return out
}

// setterFilter is apply-setters v0.2.0's filter (applysetters'
// ApplySetters.Filter and its walk) on the nodes as they are: the same
// fields set, in the same order, to the same values, with the same results
// and errors, without its costs per node — a regular expression compiled
// for every tagged scalar (twice), a field path formatted for every node,
// an RNode for every field and element.
type setterFilter struct {
	setters  []setterRef
	results  []*applysetters.Result
	filePath string
	path     []byte // the path of the node being walked, as the catalog writes it
	// current are the expressions currentSetterValues compiles, by
	// pattern (nil: it does not compile)
	current map[string]*regexp.Regexp
}

// setterRef is a setter, with its reference in a comment: ${name}.
type setterRef struct{ name, ref, value string }

func newSetterFilter(setters []applysetters.Setter) *setterFilter {
	f := &setterFilter{current: map[string]*regexp.Regexp{}}
	for _, s := range setters {
		f.setters = append(f.setters, setterRef{name: s.Name, ref: "${" + s.Name + "}", value: s.Value})
	}
	return f
}

// filter sets the fields of the items whose setter comments name a setter,
// item after item; the first error stops it (the items before it stay set).
func (f *setterFilter) filter(items []*yaml.RNode) error {
	for _, n := range items {
		path, _, _ := kioutil.GetFileAnnotations(n) // it never fails
		f.filePath = path
		f.path = f.path[:0]
		if n.YNode() == nil {
			continue
		}
		if err := f.accept(n.YNode()); err != nil {
			return errors.Wrap(err)
		}
	}
	return nil
}

// accept walks a node as the catalog's acceptImpl: a mapping is visited,
// then each of its fields; a sequence's elements; a scalar is visited.
func (f *setterFilter) accept(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		if err := f.visitMapping(n); err != nil {
			return err
		}
		return visitFields(n, func(k, v *yaml.Node) error {
			mark := len(f.path)
			f.path = append(append(f.path, '.'), k.Value...)
			err := f.accept(v)
			f.path = f.path[:mark]
			return err
		})
	case yaml.SequenceNode:
		for i, c := range n.Content {
			mark := len(f.path)
			f.path = append(strconv.AppendInt(append(f.path, '['), int64(i), 10), ']')
			err := f.accept(c)
			f.path = f.path[:mark]
			if err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return f.visitScalar(n)
	}
	return nil
}

// visitFields calls fn as kyaml's RNode.VisitFields does: for each key, in
// order, with the first field of that key (a key given twice has its first
// field visited twice).
func visitFields(m *yaml.Node, fn func(k, v *yaml.Node) error) error {
	first := func(i int) int { return i }
	if dup := duplicateKeys(m); dup != nil {
		first = func(i int) int { return dup[m.Content[i].Value] }
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		j := first(i)
		if err := fn(m.Content[j], m.Content[j+1]); err != nil {
			return errors.Wrap(err)
		}
	}
	return nil
}

// duplicateKeys returns the index of each key's first field when a key is
// given twice, or nil (a small mapping is checked without a map).
func duplicateKeys(m *yaml.Node) map[string]int {
	if len(m.Content) <= 32 && !smallDuplicates(m.Content) {
		return nil
	}
	seen := make(map[string]int, len(m.Content)/2)
	dup := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if _, ok := seen[m.Content[i].Value]; ok {
			dup = true
			continue
		}
		seen[m.Content[i].Value] = i
	}
	if !dup {
		return nil
	}
	return seen
}

// smallDuplicates: a key of the mapping's content is given twice.
func smallDuplicates(content []*yaml.Node) bool {
	for i := 2; i+1 < len(content); i += 2 {
		for j := 0; j < i; j += 2 {
			if content[i].Value == content[j].Value {
				return true
			}
		}
	}
	return false
}

// setterPattern is the catalog's extractSetterPattern.
func setterPattern(lineComment string) string {
	rest, ok := strings.CutPrefix(lineComment, applysetters.SetterCommentIdentifier)
	if !ok {
		return ""
	}
	return strings.TrimSpace(rest)
}

// shouldSet: the pattern names one of the setters.
func (f *setterFilter) shouldSet(pattern string) bool {
	for _, s := range f.setters {
		if strings.Contains(pattern, s.ref) {
			return true
		}
	}
	return false
}

// setterValue is the value of the first setter the pattern's name names.
func (f *setterFilter) setterValue(pattern string) string {
	name := clean(pattern)
	for _, s := range f.setters {
		if s.name == name {
			return s.value
		}
	}
	return ""
}

// references finds the setters a pattern refers to: ${name}.
var references = regexp.MustCompile(`\$\{([^}]*)\}`)

// clean is the name in a reference.
func clean(ref string) string {
	ref = strings.TrimSpace(ref)
	return strings.TrimSuffix(strings.TrimPrefix(ref, "${"), "}")
}

// visitMapping sets the sequences among a mapping's fields whose setter
// comment (on the key, or on a flow sequence) names a setter, as the
// catalog's visitMapping: to the setter's value read as a YAML sequence,
// or to [] for an empty value.
func (f *setterFilter) visitMapping(m *yaml.Node) error {
	return visitFields(m, func(k, v *yaml.Node) error {
		if v.Kind != yaml.SequenceNode {
			return nil
		}
		lineComment := k.LineComment
		if v.Style == yaml.FlowStyle {
			lineComment = v.LineComment
		}
		pattern := setterPattern(lineComment)
		if pattern == "" || !f.shouldSet(pattern) {
			return nil
		}
		if len(references.FindAllString(pattern, -1)) != 1 || !strings.HasPrefix(pattern, "${") || !strings.HasSuffix(pattern, "}") {
			return errors.Errorf("invalid setter pattern for array node: %q", pattern)
		}
		sv := f.setterValue(pattern)
		fieldPath := strings.TrimPrefix(string(f.path)+"."+k.Value, ".")
		if sv == "" {
			v.Content = []*yaml.Node{}
			v.Style = yaml.FlowStyle
			v.LineComment = lineComment
			k.LineComment = ""
			f.results = append(f.results, &applysetters.Result{FilePath: f.filePath, FieldPath: fieldPath, Value: sv})
			return nil
		}
		rn, err := yaml.Parse(sv)
		if err != nil || rn.YNode().Kind != yaml.SequenceNode {
			return errors.Errorf("input to array setter must be an array of values, but found %q", sv)
		}
		v.Content = rn.YNode().Content
		k.LineComment = lineComment
		v.Style = yaml.FoldedStyle
		f.results = append(f.results, &applysetters.Result{FilePath: f.filePath, FieldPath: fieldPath, Value: sv})
		return nil
	})
}

// visitScalar sets a scalar whose setter comment names a setter, as the
// catalog's visitScalar: each setter's reference in the pattern replaced
// by its value, then the others by the values the scalar holds for them.
func (f *setterFilter) visitScalar(n *yaml.Node) error {
	pattern := setterPattern(n.LineComment)
	if pattern == "" || !f.shouldSet(pattern) {
		return nil
	}
	cur := pattern
	for _, s := range f.setters {
		pattern = strings.ReplaceAll(pattern, s.ref, s.value)
	}
	for name, value := range f.currentSetterValues(cur, n.Value) {
		pattern = strings.ReplaceAll(pattern, "${"+name+"}", value)
	}
	if urs := references.FindAllString(pattern, -1); len(urs) > 0 {
		return errors.Errorf("values for setters %v must be provided", urs)
	}
	n.Value = pattern
	if pattern == "" {
		n.Style = yaml.DoubleQuotedStyle
	}
	n.Tag = yaml.NodeTagEmpty
	f.results = append(f.results, &applysetters.Result{FilePath: f.filePath, FieldPath: strings.TrimPrefix(string(f.path), "."), Value: n.Value})
	return nil
}

// currentSetterValues is the catalog's: the values a field's value holds
// for the setters its pattern names (my-app.${stage} over my-app.dev gives
// stage: dev), or none when one is missing or empty. The expression made of
// a pattern is compiled once.
func (f *setterFilter) currentSetterValues(pattern, value string) map[string]string {
	res := make(map[string]string)
	urs := references.FindAllString(pattern, -1)
	r, ok := f.current[pattern]
	if !ok {
		expr := regexp.QuoteMeta(pattern)
		for _, name := range urs {
			expr = strings.ReplaceAll(expr, regexp.QuoteMeta(name), `(?P<x>.*)`)
		}
		r, _ = regexp.Compile(expr)
		f.current[pattern] = r
	}
	if r == nil {
		return res
	}
	values := r.FindStringSubmatch(value)
	if len(values) == 0 {
		return res
	}
	values = values[1:]
	if len(urs) != len(values) {
		return res
	}
	for i := range values {
		if values[i] == "" {
			return make(map[string]string)
		}
		res[clean(urs[i])] = values[i]
	}
	return res
}
