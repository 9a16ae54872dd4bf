package fnrunner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/render"
)

// exitError is the answer to a function that exited non-zero, in the words
// of Porch's function wrapper: the structured results of its output and
// its stderr, or, when the output is no ResourceList, why and its stderr.
func exitError(image string, out []byte, stderr string) error {
	results, err := outputResults(out)
	if err != nil {
		return status.Errorf(codes.Internal, "failed to parse the output of function %q with stderr '%v': %+v", image, stderr, err)
	}
	return status.Errorf(codes.Internal, "failed to evaluate function %q with structured results: %v and stderr: %v", image, results, stderr)
}

// runError is the answer to a function that could not run to its end: its
// caller's deadline (or cancellation), a step limit, a panic, or a runner
// that could not start it (Porch's exec evaluator's words).
func runError(image string, exit render.Exit, err error) error {
	var (
		exceeded *bounded.Exceeded
		panic    *panicError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return status.FromContextError(err).Err()
	case errors.As(err, &exceeded) && exceeded.Memory:
		return status.Errorf(codes.ResourceExhausted, "function %q %v%s", image, err, stderrNote(exit.Stderr))
	case errors.As(err, &exceeded):
		return status.Errorf(codes.DeadlineExceeded, "function %q %v%s", image, err, stderrNote(exit.Stderr))
	case errors.As(err, &panic):
		return panicked(image, panic.value)
	}
	return status.Errorf(codes.Internal, "Failed to execute function %q: %s (%s)", image, err, exit.Stderr)
}

func stderrNote(stderr string) string {
	if stderr == "" {
		return ""
	}
	return ": " + stderr
}

// panicError is a panic of the work of a call.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("KRM function panicked with: %v", e.value) }

// panicked is the answer to a call that panicked.
func panicked(image string, p any) error {
	return status.Errorf(codes.Internal, "failed to evaluate function %q: %v", image, &panicError{value: p})
}

// sdkResult is a result as the KRM functions SDK reads it.
type sdkResult struct {
	Message     string `yaml:"message"`
	Severity    string `yaml:"severity"`
	ResourceRef *struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Name       string `yaml:"name"`
		Namespace  string `yaml:"namespace"`
	} `yaml:"resourceRef"`
	Field *struct {
		Path string `yaml:"path"`
	} `yaml:"field"`
}

// outputResults reads the results of a function's output and writes them
// as the SDK's Results.Error does: `[severity] apiVersion/kind/namespace/
// name field.path: message`, a blank line between two.
func outputResults(out []byte) (string, error) {
	var rl struct {
		Kind    string      `yaml:"kind"`
		Results []sdkResult `yaml:"results"`
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		return "", fmt.Errorf("failed to parse input bytes: %w", err)
	}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		if err := doc.Content[0].Decode(&rl); err != nil {
			return "", fmt.Errorf("failed to parse input bytes: %w", err)
		}
	}
	if rl.Kind != "ResourceList" {
		return "", fmt.Errorf("input was of unexpected kind %q; expected ResourceList", rl.Kind)
	}
	msgs := make([]string, len(rl.Results))
	for i, r := range rl.Results {
		msgs[i] = r.String()
	}
	return strings.Join(msgs, "\n\n"), nil
}

// String is the SDK's Result.String.
func (r sdkResult) String() string {
	severity := r.Severity
	if severity == "" {
		severity = "info"
	}
	s := "[" + severity + "]"
	if ref := r.ResourceRef; ref != nil {
		var id []string
		for _, part := range []string{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name} {
			if part != "" {
				id = append(id, part)
			}
		}
		if len(id) > 0 {
			s += " " + strings.Join(id, "/")
		}
	}
	if r.Field != nil {
		s += " " + r.Field.Path
	}
	return s + ": " + r.Message
}
