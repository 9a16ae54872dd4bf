package render

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Function is one entry of a Kptfile pipeline, as kpt reads it.
type Function struct {
	// Image is the function's container image, as kpt resolves it: a bare
	// name (no "/") is read as gcr.io/kpt-fn/<name>.
	Image string
	// Exec is the command kpt runs instead of an image: a path (relative to
	// the working folder) or a name looked up on PATH, and arguments.
	Exec string
	// Tag is newer kpt's `tag:`: a version or a semver constraint that
	// overrides the image's tag.
	Tag string
	// ConfigPath names the file of the package holding the functionConfig.
	ConfigPath string
	// Config is the functionConfig given inline (`config:`), or the
	// ConfigMap made of `configMap:`; nil for ConfigPath or no config.
	Config *yaml.RNode
	// Name names the entry (for merging with upstream pipelines).
	Name string
	// Selectors and Exclusions narrow the items the function sees.
	Selectors  []Selector
	Exclusions []Selector

	// Package is the folder of the package whose Kptfile holds the entry
	// ("" for the root), Validator whether it is a validator, and Index its
	// position in its list.
	Package   string
	Validator bool
	Index     int
}

// entry is a pipeline entry as written in a Kptfile.
type entry struct {
	Image      string      `yaml:"image"`
	Exec       string      `yaml:"exec"`
	Tag        string      `yaml:"tag"`
	ConfigPath string      `yaml:"configPath"`
	ConfigMap  *yaml.RNode `yaml:"configMap"`
	Config     *yaml.RNode `yaml:"config"`
	Name       string      `yaml:"name"`
	Selectors  []Selector  `yaml:"selectors"`
	Exclusions []Selector  `yaml:"exclude"`
}

// List names the entry's list: "mutators" or "validators".
func (f *Function) List() string {
	if f.Validator {
		return "validators"
	}
	return "mutators"
}

// Field is the entry's place in its Kptfile: pipeline.mutators[2].
func (f *Function) Field() string { return fmt.Sprintf("pipeline.%s[%d]", f.List(), f.Index) }

// String names the function as kpt prints it: its image, or its exec.
func (f *Function) String() string {
	if f.Image != "" {
		return f.Image
	}
	return f.Exec
}

// Selected reports whether the entry narrows the items it runs on.
func (f *Function) Selected() bool { return len(f.Selectors) > 0 || len(f.Exclusions) > 0 }

// Problem is a mistake in a Kptfile's pipeline: the field and kpt's reason.
type Problem struct {
	Package string // folder of the package ("" for the root)
	Field   string // pipeline.mutators[0].configPath
	Value   string
	Reason  string
}

func (p Problem) Error() string {
	where := kptfile.FileName
	if p.Package != "" {
		where = p.Package + "/" + kptfile.FileName
	}
	s := fmt.Sprintf("%s is invalid: field %s", where, p.Field)
	if p.Value != "" {
		s += fmt.Sprintf(" (%q)", p.Value)
	}
	return s + ": " + p.Reason
}

// ParsePipeline reads the pipeline of the Kptfile of the package in folder
// pkg and checks each entry as kpt does before it runs any; every problem
// is returned, in the Kptfile's order. configExists reports whether a
// configPath names a resource file of the package (nil: do not check).
func ParsePipeline(pkg string, kf *yaml.RNode, configExists func(string) error) ([]Function, []Problem) {
	var fns []Function
	var problems []Problem
	pl := kf.Field("pipeline")
	if pl == nil || yaml.IsMissingOrNull(pl.Value) {
		return nil, nil
	}
	if pl.Value.YNode().Kind != yaml.MappingNode {
		return nil, []Problem{{Package: pkg, Field: "pipeline", Reason: "must be a mapping with mutators and validators"}}
	}
	if n := pipelineLength(pl.Value.YNode()); n > kptpkg.MaxSteps {
		return nil, []Problem{{Package: pkg, Field: "pipeline", Reason: "holds " + kptpkg.TooManySteps(n)}}
	}
	for _, list := range []string{"mutators", "validators"} {
		l := pl.Value.Field(list)
		if l == nil || yaml.IsMissingOrNull(l.Value) {
			continue
		}
		if l.Value.YNode().Kind != yaml.SequenceNode {
			problems = append(problems, Problem{Package: pkg, Field: "pipeline." + list, Reason: "must be a list of functions"})
			continue
		}
		for i, n := range l.Value.YNode().Content {
			f, ps := parseEntry(pkg, list, i, n, configExists)
			fns = append(fns, f)
			problems = append(problems, ps...)
		}
	}
	return fns, problems
}

// pipelineLength counts the entries of a pipeline's lists.
func pipelineLength(pl *yaml.Node) int {
	n := 0
	for i := 0; i+1 < len(pl.Content); i += 2 {
		if k, v := pl.Content[i].Value, pl.Content[i+1]; (k == "mutators" || k == "validators") && v.Kind == yaml.SequenceNode {
			n += len(v.Content)
		}
	}
	return n
}

// parseEntry reads one pipeline entry and checks it.
func parseEntry(pkg, list string, i int, n *yaml.Node, configExists func(string) error) (Function, []Problem) {
	f := Function{Package: pkg, Validator: list == "validators", Index: i}
	field := f.Field()
	bad := func(sub, value, reason string) Problem {
		return Problem{Package: pkg, Field: field + sub, Value: value, Reason: reason}
	}
	var e entry
	var problems []Problem
	for _, err := range decode.Into(n, &e, decode.Options{KnownFields: true}, "") {
		sub := ""
		if err.Path != "" {
			sub = "." + err.Path
		}
		problems = append(problems, bad(sub, "", err.Msg))
	}
	f.Image, f.Exec, f.Tag, f.ConfigPath, f.Name = resolveImage(e.Image), e.Exec, e.Tag, e.ConfigPath, e.Name
	f.Selectors, f.Exclusions = e.Selectors, e.Exclusions
	switch {
	case e.Image == "" && e.Exec == "":
		problems = append(problems, bad("", "", "must specify a function (`image` or `exec`) to execute"))
	case e.Image != "" && e.Exec != "":
		problems = append(problems, bad("", "", "must not specify both `image` and `exec` at the same time"))
	case e.Image != "" && !validImage(e.Image):
		problems = append(problems, bad(".image", e.Image, fmt.Sprintf("function name %q is invalid", e.Image)))
	}
	configs := 0
	for _, set := range []bool{e.ConfigPath != "", e.ConfigMap != nil && len(e.ConfigMap.YNode().Content) > 0, e.Config != nil} {
		if set {
			configs++
		}
	}
	if configs > 1 {
		problems = append(problems, bad("", "", "functionConfig must not specify more than one of `configMap`, `configPath` and `config` at the same time"))
	}
	if e.ConfigMap != nil && len(e.ConfigMap.YNode().Content) > 0 {
		cm, err := configMap(e.ConfigMap)
		if err != nil {
			problems = append(problems, bad(".configMap", "", err.Error()))
		}
		f.Config = cm
	}
	if e.Config != nil {
		f.Config = e.Config
		if e.Config.YNode().Kind != yaml.MappingNode || e.Config.GetKind() == "" || e.Config.GetApiVersion() == "" {
			problems = append(problems, bad(".config", "", "functionConfig must be a resource with `apiVersion` and `kind`"))
		}
	}
	if e.ConfigPath != "" {
		if err := configPathSyntax(e.ConfigPath); err != nil {
			problems = append(problems, bad(".configPath", e.ConfigPath, err.Error()))
		} else if configExists != nil {
			if err := configExists(path.Clean(e.ConfigPath)); err != nil {
				problems = append(problems, bad(".configPath", e.ConfigPath, err.Error()))
			}
		}
	}
	return f, problems
}

// resolveImage reads a bare image name as kpt does: gcr.io/kpt-fn/<name>.
func resolveImage(image string) string {
	if image != "" && !strings.Contains(image, "/") {
		return "gcr.io/kpt-fn/" + image
	}
	return image
}

// configPathSyntax checks a configPath as kpt does.
func configPathSyntax(p string) error {
	switch c := path.Clean(p); {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("path must not be empty")
	case path.IsAbs(c):
		return fmt.Errorf("path must be relative")
	case strings.Contains(c, ".."):
		return fmt.Errorf("path must not be outside the package")
	}
	return nil
}

// configMap makes the functionConfig of a configMap entry as kpt does: a
// ConfigMap named function-input whose values are strings. Keys keep the
// Kptfile's order (kpt's map has none).
func configMap(data *yaml.RNode) (*yaml.RNode, error) {
	cm, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}\n")
	if err != nil {
		return nil, err
	}
	d := &yaml.Node{Kind: yaml.MappingNode}
	if data.YNode().Kind != yaml.MappingNode {
		err = fmt.Errorf("must be a mapping of strings")
	}
	c := data.YNode().Content
	for i := 0; err == nil && i+1 < len(c); i += 2 {
		if c[i+1].Kind != yaml.ScalarNode {
			err = fmt.Errorf("%s: must be a string", c[i].Value)
			break
		}
		d.Content = append(d.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: c[i].Value},
			&yaml.Node{Kind: yaml.ScalarNode, Value: c[i+1].Value, Tag: yaml.NodeTagString})
	}
	cm.Field("data").Value.SetYNode(d)
	return cm, err
}

// imageName matches a container image reference as kpt validates it
// (Docker's reference grammar).
var imageName = func() *regexp.Regexp {
	pathComponent := `(?:[a-z0-9](?:(?:[_.]|__|[-]*)[a-z0-9]+)*)`
	domainComponent := `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domain := fmt.Sprintf(`%s(?:\.%s)*(?:\:[0-9]+)?`, domainComponent, domainComponent)
	name := fmt.Sprintf(`(?:%s\/)?%s(?:\/%s)*`, domain, pathComponent, pathComponent)
	version := `((?:[\w][\w.-]{0,127})|(sha256:[a-zA-Z0-9]{64}))`
	return regexp.MustCompile(fmt.Sprintf(`^(?:%s(?:(\:|@)%s)?)$`, name, version))
}()

func validImage(image string) bool { return imageName.MatchString(image) }
