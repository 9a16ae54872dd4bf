package render

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/result"
)

// ResultList is kpt's FunctionResultList: the results of every step run,
// and the exit code of the whole render.
type ResultList struct {
	yaml.ResourceMeta `yaml:",inline"`
	ExitCode          int          `yaml:"exitCode"`
	Items             []StepResult `yaml:"items,omitempty"`
}

// StepResult is what one step gave: which function, its exit code, what it
// wrote on stderr and its structured results.
type StepResult struct {
	Image    string            `yaml:"image,omitempty"`
	Exec     string            `yaml:"exec,omitempty"`
	Stderr   string            `yaml:"stderr,omitempty"`
	ExitCode int               `yaml:"exitCode"`
	Results  framework.Results `yaml:"results,omitempty"`
}

// newResultList returns an empty list with kpt's type and name.
func newResultList() ResultList {
	return ResultList{
		ResourceMeta: yaml.ResourceMeta{
			TypeMeta:   yaml.TypeMeta{APIVersion: "kpt.dev/v1", Kind: "FunctionResultList"},
			ObjectMeta: yaml.ObjectMeta{NameMeta: yaml.NameMeta{Name: "fnresults"}},
		},
		Items: []StepResult{},
	}
}

// Encode writes the list as kpt writes results.yaml.
func (l ResultList) Encode() ([]byte, error) {
	var b bytes.Buffer
	e := yaml.NewEncoderWithOptions(&b, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err := e.Encode(l); err != nil {
		return nil, err
	}
	err := e.Close()
	return b.Bytes(), err
}

// Errors returns the messages of the step's error results, or its stderr
// when it gave none: the function's own words for what went wrong.
func (s StepResult) Errors() string {
	if msgs := s.List().Errors().Messages(); len(msgs) > 0 {
		return strings.Join(msgs, "; ")
	}
	return strings.TrimSpace(s.Stderr)
}

// Function names the step's function: its image, or its exec.
func (s StepResult) Function() string {
	if s.Image != "" {
		return s.Image
	}
	return s.Exec
}

// List returns the step's results as kptkit's results, as the function
// gave them: a result without a severity is an info (the KRM Functions
// Specification's default).
func (s StepResult) List() result.List {
	return s.list("")
}

// List returns every step's results as kptkit's results, in the order
// the steps ran, each message led by its step's function
// ("<image>: <message>").
func (l ResultList) List() result.List {
	var out result.List
	for _, step := range l.Items {
		out = append(out, step.list(step.Function()+": ")...)
	}
	return out
}

// list converts the step's results, each message led by prefix.
func (s StepResult) list(prefix string) result.List {
	var out result.List
	for _, fr := range s.Results {
		if fr == nil {
			continue
		}
		r := result.Result{Severity: result.Severity(fr.Severity), Message: prefix + fr.Message}
		if fr.Severity == "" {
			r.Severity = result.SeverityInfo
		}
		if ref := fr.ResourceRef; ref != nil {
			r = r.WithRef(result.ResourceRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Namespace: ref.Namespace})
		}
		if fr.Field != nil {
			r = r.WithField(fr.Field.Path)
		}
		if fr.File != nil {
			r = r.WithFile(fr.File.Path, fr.File.Index)
		}
		out = append(out, r)
	}
	return out
}

// frameworkResults converts kptkit's results into the results a kpt
// function writes.
func frameworkResults(rs result.List) framework.Results {
	var out framework.Results
	for _, r := range rs {
		fr := &framework.Result{Message: r.Message, Severity: framework.Severity(r.Severity)}
		if ref := r.ResourceRef; ref != nil {
			fr.ResourceRef = &yaml.ResourceIdentifier{
				TypeMeta: yaml.TypeMeta{APIVersion: ref.APIVersion, Kind: ref.Kind},
				NameMeta: yaml.NameMeta{Name: ref.Name, Namespace: ref.Namespace},
			}
		}
		if r.Field != nil {
			fr.Field = &framework.Field{Path: r.Field.Path}
		}
		if r.File != nil {
			fr.File = &framework.File{Path: r.File.Path, Index: r.File.Index}
		}
		out = append(out, fr)
	}
	return out
}

// parseResults reads a function's results as kpt does: the KRM Functions
// Specification's list, or the older SDKs' {items: [...]} wrapping, with
// resourceRef.metadata.{name,namespace} and field.suggestedValue lifted.
func parseResults(n *yaml.RNode) (framework.Results, error) {
	if n.IsNilOrEmpty() {
		return nil, nil
	}
	if n.YNode().Kind == yaml.MappingNode {
		if items := n.Field("items"); items != nil && !items.Value.IsNilOrEmpty() {
			n = items.Value
		}
	}
	s, err := n.String()
	if err != nil {
		return nil, err
	}
	var rs framework.Results
	if err := yaml.Unmarshal([]byte(s), &rs); err != nil {
		return nil, err
	}
	elems, err := n.Elements()
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		if i >= len(rs) || rs[i] == nil {
			break
		}
		liftLegacy(e, rs[i])
	}
	return rs, nil
}

// liftLegacy fills in what older SDKs put elsewhere.
func liftLegacy(e *yaml.RNode, r *framework.Result) {
	if sv, _ := e.Pipe(yaml.Lookup("field", "suggestedValue")); sv != nil {
		if r.Field == nil {
			r.Field = &framework.Field{}
		}
		r.Field.ProposedValue = sv
	}
	meta, _ := e.Pipe(yaml.Lookup("resourceRef", "metadata"))
	if meta == nil {
		return
	}
	if r.ResourceRef == nil {
		r.ResourceRef = &yaml.ResourceIdentifier{}
	}
	if n := meta.Field("name"); n != nil {
		r.ResourceRef.Name = strings.TrimSpace(n.Value.MustString())
	}
	if n := meta.Field("namespace"); n != nil {
		if ns := strings.TrimSpace(n.Value.MustString()); ns != "" && ns != "''" {
			r.ResourceRef.Namespace = ns
		}
	}
}

// Failure says why a render failed: which step (its package, list, index
// and function) or which Kptfiles, and the function's own message (its
// error results' messages, or what it wrote on stderr).
type Failure struct {
	Package string // folder of the package ("" for the root)
	// Image and Exec name the function of the step that failed; both are
	// empty when no step failed (a Kptfile is wrong, the tree unreadable).
	Image, Exec string
	List        string // "mutators" or "validators"; "" when no step failed
	Index       int    // the step's place in its list
	Message     string
	Problems    []Problem // mistakes in Kptfiles, all of them
}

// Step names the step that failed: pipeline.mutators[1]; "" for none.
func (f *Failure) Step() string {
	if f.List == "" {
		return ""
	}
	return fmt.Sprintf("pipeline.%s[%d]", f.List, f.Index)
}

func (f *Failure) Error() string {
	fn := f.Image
	if fn == "" {
		fn = f.Exec
	}
	if f.List == "" {
		return f.Message
	}
	where := ""
	if f.Package != "" {
		where = fmt.Sprintf(" of package %s", f.Package)
	}
	return fmt.Sprintf("%s (%s%s) failed: %s", fn, f.Step(), where, f.Message)
}
