package result

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity is how bad a result is. Only SeverityError makes a function fail.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// rank orders severities: errors first.
func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}

// ResourceRef names the item a result is about.
type ResourceRef struct {
	APIVersion string `yaml:"apiVersion,omitempty" json:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty" json:"kind,omitempty"`
	Name       string `yaml:"name,omitempty" json:"name,omitempty"`
	Namespace  string `yaml:"namespace,omitempty" json:"namespace,omitempty"`
}

// Field names the field of the item (or of the functionConfig) a result is about.
type Field struct {
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
}

// File names the file, and the document within it, a result is about.
type File struct {
	Path  string `yaml:"path,omitempty" json:"path,omitempty"`
	Index int    `yaml:"index,omitempty" json:"index,omitempty"`
}

// Result is one entry of a ResourceList's results, as the KRM Functions
// Specification defines it (the same field names in YAML and JSON).
type Result struct {
	Message     string       `yaml:"message" json:"message"`
	Severity    Severity     `yaml:"severity" json:"severity"`
	ResourceRef *ResourceRef `yaml:"resourceRef,omitempty" json:"resourceRef,omitempty"`
	Field       *Field       `yaml:"field,omitempty" json:"field,omitempty"`
	File        *File        `yaml:"file,omitempty" json:"file,omitempty"`
}

// New returns a result with the given severity and a formatted message.
func New(sev Severity, format string, args ...any) Result {
	return Result{Severity: sev, Message: fmt.Sprintf(format, args...)}
}

// Errorf returns an error result.
func Errorf(format string, args ...any) Result { return New(SeverityError, format, args...) }

// Warningf returns a warning result.
func Warningf(format string, args ...any) Result { return New(SeverityWarning, format, args...) }

// Infof returns an info result.
func Infof(format string, args ...any) Result { return New(SeverityInfo, format, args...) }

// WithField returns r pointing at the field path.
func (r Result) WithField(path string) Result {
	if path != "" {
		r.Field = &Field{Path: path}
	}
	return r
}

// WithFile returns r pointing at the file (and document index within it).
func (r Result) WithFile(path string, index int) Result {
	if path != "" {
		r.File = &File{Path: path, Index: index}
	}
	return r
}

// WithRef returns r pointing at the resource.
func (r Result) WithRef(ref ResourceRef) Result {
	if ref != (ResourceRef{}) {
		r.ResourceRef = &ref
	}
	return r
}

// String renders the result for people: `error: <message> (<Kind>/<name>,
// field <path>, file <path>)`, each where-part only when the message does
// not say it already (kpt prints the resource and field before a message;
// some messages leave them to it).
func (r Result) String() string {
	var where []string
	if ref := r.ResourceRef; ref != nil && ref.Kind != "" && ref.Name != "" && !strings.Contains(r.Message, ref.Kind+"/") {
		where = append(where, ref.Kind+"/"+ref.Name)
	}
	if r.Field != nil && r.Field.Path != "" && !strings.Contains(r.Message, r.Field.Path) {
		where = append(where, "field "+r.Field.Path)
	}
	if r.File != nil && r.File.Path != "" && !strings.Contains(r.Message, r.File.Path) {
		where = append(where, "file "+r.File.Path)
	}
	s := string(r.Severity) + ": " + r.Message
	if len(where) > 0 {
		s += " (" + strings.Join(where, ", ") + ")"
	}
	return s
}

// Error lets a Result travel as a Go error where that is convenient.
func (r Result) Error() string { return r.Message }

// List is a set of results.
type List []Result

// HasError reports whether any result is an error.
func (l List) HasError() bool {
	for _, r := range l {
		if r.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns the list's error results, in the list's order.
func (l List) Errors() List {
	var out List
	for _, r := range l {
		if r.Severity == SeverityError {
			out = append(out, r)
		}
	}
	return out
}

// Messages returns the results' messages, in the list's order; each
// caller joins them in its own way.
func (l List) Messages() []string {
	out := make([]string, 0, len(l))
	for _, r := range l {
		out = append(out, r.Message)
	}
	return out
}

// MaxResults caps how many results a function reports; the rest are summed
// up in one last result.
const MaxResults = 1000

// Sorted returns the results in a deterministic order (errors first, then by
// file, resource, field and message), without exact duplicates, and capped at
// MaxResults.
func (l List) Sorted() List {
	out := slices.Clone(l)
	slices.SortStableFunc(out, compare)
	out = slices.CompactFunc(out, func(a, b Result) bool { return compare(a, b) == 0 })
	if len(out) > MaxResults {
		dropped := out[MaxResults-1:]
		out = append(out[:MaxResults-1:MaxResults-1], Result{
			Severity: dropped[0].Severity,
			Message:  fmt.Sprintf("%d more results not shown", len(dropped)),
		})
	}
	return out
}

func compare(a, b Result) int {
	if c := cmp.Compare(a.Severity.rank(), b.Severity.rank()); c != 0 {
		return c
	}
	if c := compareFile(a.File, b.File); c != 0 {
		return c
	}
	if c := compareRef(a.ResourceRef, b.ResourceRef); c != 0 {
		return c
	}
	if c := cmp.Compare(fieldPath(a.Field), fieldPath(b.Field)); c != 0 {
		return c
	}
	return cmp.Compare(a.Message, b.Message)
}

func compareFile(a, b *File) int {
	if a == nil || b == nil {
		return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
	}
	if c := cmp.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

func compareRef(a, b *ResourceRef) int {
	if a == nil || b == nil {
		return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
	}
	for _, c := range []int{
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Namespace, b.Namespace),
		cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.APIVersion, b.APIVersion),
	} {
		if c != 0 {
			return c
		}
	}
	return 0
}

func fieldPath(f *Field) string {
	if f == nil {
		return ""
	}
	return f.Path
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
