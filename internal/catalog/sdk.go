package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	replacements "github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/apply-replacements/replacements"
	"github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/apply-setters/applysetters"
	namespace "github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/set-namespace/transformer"
	"github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/starlark/starlark"
	sdk "github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/render"
)

// The processors the catalog's mains hand to the SDK.
var (
	applyReplacements = sdk.ResourceListProcessorFunc(replacements.ApplyReplacements)
	setNamespace      = sdk.ResourceListProcessorFunc(namespace.SetNamespace)
	starlarkProcess   = sdk.ResourceListProcessorFunc(starlark.Process)
)

// sdkRun runs a processor written for the kpt functions SDK as the
// function's main (fn.AsMain) does: the SDK parses the ResourceList, the
// processor runs, the SDK writes the list (sorting its items); a failure
// exits 1 with the SDK's message on stderr.
func sdkRun(p sdk.ResourceListProcessor) func([]byte) ([]byte, render.Exit) {
	return func(in []byte) ([]byte, render.Exit) {
		out, err := sdk.Run(p, in)
		if err != nil {
			return out, render.Exit{Code: 1, Stderr: fmt.Sprintf("failed to evaluate function: %v", err)}
		}
		return out, render.Exit{}
	}
}

// ApplySetters is apply-setters v0.2.0's processor (its main.go) on the
// kyaml framework of this build: that main was written for kyaml v0.10,
// whose result types are gone; the messages and fields are the same.
var ApplySetters framework.ResourceListProcessor = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	var s applysetters.ApplySetters
	applysetters.Decode(rl.FunctionConfig, &s)
	if _, err := s.Filter(rl.Items); err != nil {
		rl.Results = framework.Results{{Message: "failed to apply setters: " + err.Error(), Severity: framework.Error}}
		return err
	}
	rl.Results = nil
	if len(s.Results) == 0 {
		rl.Results = framework.Results{{Message: "no matches for input setter(s)"}}
	}
	for _, res := range s.Results {
		rl.Results = append(rl.Results, &framework.Result{
			Message: fmt.Sprintf("set field value to %q", res.Value),
			Field:   &framework.Field{Path: res.FieldPath},
			File:    &framework.File{Path: res.FilePath},
		})
	}
	return nil
})

// applySetters runs ApplySetters as its main does: kyaml's framework reads
// and writes the list; a failure exits 1 with the error on stderr (the
// command prints it, and so does main).
func applySetters(in []byte) ([]byte, render.Exit) {
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &out, KeepReaderAnnotations: true}
	if err := framework.Execute(ApplySetters, rw); err != nil {
		return out.Bytes(), render.Exit{Code: 1, Stderr: fmt.Sprintf("%v", err) + fmt.Sprintln(err)}
	}
	return out.Bytes(), render.Exit{}
}

// panicked is the output of a built-in that panicked: an error result, and
// exit code 1.
func panicked(in []byte, name string, p any) ([]byte, render.Exit) {
	msg := fmt.Sprintf("%s panicked: %v", name, p)
	rl := yaml.NewMapRNode(&map[string]string{"apiVersion": kio.ResourceListAPIVersion, "kind": kio.ResourceListKind})
	_ = rl.PipeE(yaml.SetField("items", yaml.NewListRNode()))
	res, err := yaml.Parse(fmt.Sprintf("- message: %q\n  severity: error\n", msg))
	if err == nil {
		_ = rl.PipeE(yaml.SetField("results", res))
	}
	s, _ := rl.String()
	return []byte(s), render.Exit{Code: 1, Stderr: msg + "\n"}
}

// noNetwork refuses every request of starlark's http module.
type noNetwork struct{}

var errNoNetwork = errors.New("network access is off for built-in functions (kpt runs images with --network none)")

func (noNetwork) Allowed(*http.Request) error { return errNoNetwork }
