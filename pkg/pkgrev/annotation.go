package pkgrev

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

// Annotation is the structured data Porch writes into each commit message it
// makes, on a line of its own: `kpt:` and this value as JSON
// (gitAnnotation, pkg/externalrepo/git/annotation.go). Revision is a string:
// "0" on a draft, "3" on the approval of revision 3.
type Annotation struct {
	Package       string      `json:"package,omitempty"`
	WorkspaceName string      `json:"workspaceName,omitempty"`
	Revision      string      `json:"revision,omitempty"`
	Task          *porch.Task `json:"task,omitempty"`
}

const annotationPrefix = "kpt:"

// Annotate returns a commit message with the annotation appended as Porch
// appends it: a blank line, `kpt:` and the JSON (encoding/json's, HTML
// characters escaped), then a newline.
func Annotate(message string, a Annotation) (string, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return "", fmt.Errorf("cannot encode the commit annotation: %w", err)
	}
	return message + "\n\n" + annotationPrefix + string(b) + "\n", nil
}

// ReadAnnotations returns the annotations of a commit message: every line
// that starts with `kpt:` once trimmed of spaces. A line whose JSON does not
// read is an error; the others are still returned, as Porch reads them
// (ExtractGitAnnotations).
func ReadAnnotations(message string) ([]Annotation, error) {
	var out []Annotation
	var errs []error
	for line := range strings.Lines(message) {
		line = strings.TrimSpace(line)
		data, ok := strings.CutPrefix(line, annotationPrefix)
		if !ok {
			continue
		}
		var a Annotation
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			errs = append(errs, fmt.Errorf("annotation %q: %w", clip(line), err))
			continue
		}
		out = append(out, a)
	}
	return out, errors.Join(errs...)
}

// clip shortens a line for a message.
func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// WorkspaceOf returns the workspace the first annotation for the package
// names ("" for none), as Porch finds a published revision's workspace on
// its commit (getPkgWorkspace).
func WorkspaceOf(annotations []Annotation, full string) string {
	for _, a := range annotations {
		if a.Package == full && a.WorkspaceName != "" {
			return a.WorkspaceName
		}
	}
	return ""
}
