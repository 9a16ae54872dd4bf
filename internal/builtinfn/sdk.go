package builtinfn

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"

	replacements "github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/apply-replacements/replacements"
	"github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/apply-setters/applysetters"
	namespace "github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/set-namespace/transformer"
	"github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/starlark/starlark"
	sdk "github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// The processors the catalog's mains hand to the SDK.
var (
	applyReplacements = sdk.ResourceListProcessorFunc(replacements.ApplyReplacements)
	// applyReplacementsFast runs on kptkit's nodes where it can.
	applyReplacementsFast = nodeProcessor{applyReplacements, applyReplacementsDirect}
	setNamespace          = sdk.ResourceListProcessorFunc(namespace.SetNamespace)
	starlarkProcess       = sdk.ResourceListProcessorFunc(starlark.Process)
)

// sdkRun runs a processor written for the kpt functions SDK as the
// function's main (fn.AsMain, fn.Run) does: the SDK parses the
// ResourceList, the processor runs, the list is written with its items
// sorted; a failure exits 1 with the SDK's message on stderr.
func sdkRun(p sdk.ResourceListProcessor) func([]byte) ([]byte, render.Exit) {
	return func(in []byte) ([]byte, render.Exit) {
		out, err := runSDK(p, in)
		if err != nil {
			return out, render.Exit{Code: 1, Stderr: fmt.Sprintf("failed to evaluate function: %v", err)}
		}
		return out, render.Exit{}
	}
}

// nodeProcessor is a processor that runs on the nodes parseSDK wrapped
// (applyReplacementsDirect), with the SDK's processor for a list parseSDK
// leaves to the SDK.
type nodeProcessor struct {
	sdk  sdk.ResourceListProcessor
	node func(rl *sdk.ResourceList, nodes wrapped) (bool, error)
}

// errRedo: a nodeProcessor left the items changed where the SDK's
// processor leaves them as they were (it failed half way), and asks for the
// SDK's processor instead.
var errRedo = errors.New("redo on the SDK path")

// Process implements sdk.ResourceListProcessor: the SDK's processor.
func (p nodeProcessor) Process(rl *sdk.ResourceList) (bool, error) { return p.sdk.Process(rl) }

// runSDK is the SDK's fn.Run, writing the list item by item (writeSDK).
func runSDK(p sdk.ResourceListProcessor, in []byte) (out []byte, err error) {
	rl, nodes, err := parseSDK(in)
	if err != nil {
		return nil, err
	}
	defer func() {
		// As fn.Run: the SDK's own field errors become results; any other
		// panic goes on (to the runner, which makes it an error result).
		switch v := recover().(type) {
		case nil:
			return
		case sdk.ErrKubeObjectFields:
			err = &v
		case *sdk.ErrKubeObjectFields:
			err = v
		case sdk.ErrSubObjectFields:
			err = &v
		case *sdk.ErrSubObjectFields:
			err = v
		default:
			panic(v)
		}
		rl.LogResult(err)
		out, _ = writeSDK(rl, nodes)
	}()
	var success bool
	var fnErr error
	if np, ok := p.(nodeProcessor); ok && nodes != nil {
		success, fnErr = np.node(rl, nodes)
		if errors.Is(fnErr, errRedo) {
			// the nodes are spoilt: the SDK's processor on a list read anew
			if rl, nodes, err = parseSDK(in); err != nil {
				return nil, err
			}
			success, fnErr = np.sdk.Process(rl)
		}
	} else {
		success, fnErr = p.Process(rl)
	}
	out, err = writeSDK(rl, nodes)
	switch {
	case err != nil:
		return out, err
	case fnErr != nil:
		return out, fnErr
	case !success:
		return out, fmt.Errorf("error: function failure")
	}
	return out, nil
}

// parseSDK is the SDK's ParseResourceList, the items built on every core
// (render.ReadList): the SDK wraps the very nodes of a list parsed whole,
// and so does parseSDK. A list the SDK reads otherwise or refuses (no
// items, results, a functionConfig or an item that is not a mapping) is
// left to it. It also returns the node each item wraps.
func parseSDK(in []byte) (*sdk.ResourceList, wrapped, error) {
	l, err := render.ReadList(in)
	if err != nil || len(l.Items) == 0 || l.Results != nil || !mapping(l.FunctionConfig) || slices.ContainsFunc(l.Items, notMapping) {
		rl, err := sdk.ParseResourceList(in)
		return rl, nil, err
	}
	rl := &sdk.ResourceList{FunctionConfig: sdk.NewEmptyKubeObject()}
	if l.FunctionConfig != nil {
		rl.FunctionConfig = kubeObject(l.FunctionConfig)
	}
	rl.Items = make([]*sdk.KubeObject, len(l.Items))
	nodes := make(wrapped, len(l.Items))
	for i, n := range l.Items {
		rl.Items[i] = kubeObject(n)
		nodes[rl.Items[i]] = n.YNode()
	}
	return rl, nodes, nil
}

// wrapped are the nodes of the items parseSDK made, for writeSDK: the SDK
// does not give an object's node back.
type wrapped map[*sdk.KubeObject]*yaml.Node

// nodeOf returns the node an item of parseSDK still wraps (it reads its
// first field's value node from the object), or nil.
func (w wrapped) nodeOf(o *sdk.KubeObject) *yaml.Node {
	n := w[o]
	if n == nil || len(n.Content) < 2 || n.Content[0].Kind != yaml.ScalarNode {
		return nil
	}
	var v yaml.RNode
	if found, err := o.Get(&v, n.Content[0].Value); err != nil || !found || v.YNode() != n.Content[1] {
		return nil
	}
	return n
}

// mapping: a mapping node, or none.
func mapping(n *yaml.RNode) bool { return n == nil || n.YNode().Kind == yaml.MappingNode }

func notMapping(n *yaml.RNode) bool { return !mapping(n) }

// kubeObject wraps a mapping node as the SDK's parser does (the SDK's one
// exported way to wrap a node is UpsertObjectToItems).
func kubeObject(n *yaml.RNode) *sdk.KubeObject {
	var rl sdk.ResourceList
	_ = rl.UpsertObjectToItems(n, func(_, _ *sdk.KubeObject) bool { return false }, false)
	return rl.Items[0]
}

// errFrame: the SDK wrote a list in a shape writeSDK does not know.
var errFrame = errors.New("unexpected ResourceList frame")

// writeSDK writes a ResourceList byte for byte as the SDK's ToYAML does
// (items sorted; TestWriteSDKCorpus), with the SDK's own encoder, an item
// at a time: its encoder keeps every event of a document until the end,
// which for thousands of items costs hundreds of megabytes. The list
// without its items gives the frame; each item is written as the one item
// of a list, which the encoder writes as it writes it among the others;
// an item that still wraps the node parseSDK gave it is written by
// pkg/resourcelist's emitter where it takes it (yaml.v3's bytes, cheaper).
func writeSDK(rl *sdk.ResourceList, nodes wrapped) ([]byte, error) {
	rl.Sort()
	frame, err := (&sdk.ResourceList{FunctionConfig: rl.FunctionConfig, Results: rl.Results}).ToYAML()
	if err != nil || len(rl.Items) == 0 {
		return frame, err
	}
	const kind = "kind: ResourceList\n"
	at := bytes.Index(frame, []byte(kind))
	if at < 0 {
		return rl.ToYAML()
	}
	at += len(kind)
	var b bytes.Buffer
	b.Write(frame[:at])
	b.WriteString("items:\n")
	items, err := parallel.Join(len(rl.Items), render.ParallelItems, func(i int, w *bytes.Buffer) error {
		if n := nodes.nodeOf(rl.Items[i]); n != nil && resourcelist.EmitEntry(w, n) {
			return nil
		}
		one, err := (&sdk.ResourceList{Items: []*sdk.KubeObject{rl.Items[i]}, FunctionConfig: sdk.NewEmptyKubeObject()}).ToYAML()
		if err != nil {
			return err
		}
		at := bytes.Index(one, []byte(kind+"items:\n"))
		if at < 0 {
			return errFrame
		}
		w.Write(one[at+len(kind)+len("items:\n"):])
		return nil
	})
	if errors.Is(err, errFrame) {
		return rl.ToYAML()
	}
	if err != nil {
		return nil, err
	}
	b.Write(items)
	b.Write(frame[at:])
	return b.Bytes(), nil
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
	rl.Results = settersResults(s.Results)
	return nil
})

// applySetters runs ApplySetters as its main does (kyaml's
// framework.Execute over stdin and stdout): the list is read, the
// annotations kyaml migrates are reconciled, and the list written back
// (item by item, as render.EncodeList writes kyaml's ByteWriter output); a
// failure exits 1 with the error on stderr (the command prints it, and so
// does main).
func applySetters(in []byte) ([]byte, render.Exit) {
	out, err := applySettersDirect(in)
	if err != nil {
		return out, render.Exit{Code: 1, Stderr: fmt.Sprintf("%v", err) + fmt.Sprintln(err)}
	}
	return out, render.Exit{}
}

// executeFramework is kyaml's framework.Execute over bytes.
func executeFramework(p framework.ResourceListProcessor, in []byte) ([]byte, error) {
	l, err := render.ReadList(in)
	if err != nil {
		return nil, fmt.Errorf("failed to read ResourceList input: %w", err)
	}
	return executeList(p, l)
}

// executeList is framework.Execute after the list is read.
func executeList(p framework.ResourceListProcessor, l render.List) ([]byte, error) {
	rl := framework.ResourceList{Items: l.Items, FunctionConfig: l.FunctionConfig}
	annos, err := kio.PreprocessResourcesForInternalAnnotationMigration(rl.Items)
	if err != nil {
		return nil, err
	}
	retErr := p.Process(&rl)
	if err := kio.ReconcileInternalAnnotations(rl.Items, annos); err != nil {
		return nil, err
	}
	results, err := marshalResults(rl.Results, l.Results)
	if err != nil {
		return nil, err
	}
	for _, n := range rl.Items {
		if err := yaml.ClearEmptyAnnotations(n); err != nil {
			return nil, err
		}
	}
	out, err := render.EncodeList(rl.Items, rl.FunctionConfig, results)
	if err != nil {
		return nil, err
	}
	return out, retErr
}

// marshalResults is the results field the framework writes: the
// processor's results, or the input's when it has none.
func marshalResults(rs framework.Results, input *yaml.RNode) (*yaml.RNode, error) {
	if len(rs) == 0 {
		return input, nil
	}
	b, err := yaml.Marshal(rs)
	if err != nil {
		return nil, err
	}
	return yaml.Parse(string(b))
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
