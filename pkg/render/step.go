package render

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// step runs one function over input as kpt's function runner does, records
// its result, and tells Progress.
func (r *renderer) step(dir string, f *Function, run Runner, input []*yaml.RNode, cfg *yaml.RNode) ([]*yaml.RNode, error) {
	name, count := r.display(dir), -1
	if f.Selected() {
		count = len(input)
	}
	r.emit(Event{Package: name, Function: f, Count: count})
	start := r.now()
	output, res, err := r.do(dir, f, run, input, cfg)
	r.emit(Event{Package: name, Function: f, End: true, Count: count, Duration: r.now().Sub(start), Result: res, Err: err})
	if err != nil {
		failure := r.fail(dir, f, err)
		var exit *ExitError
		if res != nil && errors.As(err, &exit) {
			if msg := res.Errors(); msg != "" {
				failure.Message = msg
			}
		}
		return nil, failure
	}
	r.executed++
	return output, nil
}

// do runs the function and checks its output as kpt does: every item has a
// package, a path inside it, a unique path and index, and is a resource.
func (r *renderer) do(dir string, f *Function, run Runner, input []*yaml.RNode, cfg *yaml.RNode) ([]*yaml.RNode, *StepResult, error) {
	if err := areKRM(input); err != nil {
		return nil, nil, fmt.Errorf("input resource list must contain only KRM resources: %s", err)
	}
	res := &StepResult{Image: f.Image, Exec: f.Exec}
	var output []*yaml.RNode
	var exit Exit
	var runErr error
	if p, ok := run.(InProcess); ok {
		if p.Env.Now == nil && p.Env.Getenv == nil {
			p.Env = r.opts.Env
		}
		output, res.Results, exit, runErr = r.watch(p, input, cfg)
	} else {
		var results *yaml.RNode
		output, results, exit, runErr = filter(run, input, cfg)
		var err error
		if res.Results, err = parseResults(results); err != nil {
			return output, nil, err
		}
	}
	pp := r.annotationPath(dir)
	for _, n := range output {
		if v, _, ok := annotation(n, packagePathAnnotation); ok && v != "" {
			continue
		}
		if n.GetAnnotations(packagePathAnnotation)[packagePathAnnotation] == "" {
			if err := n.PipeE(yaml.SetAnnotation(packagePathAnnotation, pp)); err != nil {
				return output, nil, err
			}
		}
	}
	if err := pathInvariants(output); err != nil {
		return output, nil, err
	}
	if err := areKRM(output); err != nil {
		return output, nil, fmt.Errorf("output resource list must contain only KRM resources: %s", err)
	}
	res.Stderr = exit.Stderr
	if runErr != nil {
		r.results.ExitCode = 1
		res.ExitCode = 1
		if exit.Code != 0 {
			res.ExitCode = exit.Code
		}
	}
	r.results.Items = append(r.results.Items, *res)
	return output, res, runErr
}

// watch runs a kptkit function on the items through Options.Watch: a step
// it stopped waiting for fails with its error, with no output.
func (r *renderer) watch(p InProcess, input []*yaml.RNode, cfg *yaml.RNode) ([]*yaml.RNode, framework.Results, Exit, error) {
	if r.opts.Watch == nil {
		return inProcess(p, input, cfg)
	}
	var output []*yaml.RNode
	var results framework.Results
	var exit Exit
	var runErr error
	if err := r.opts.Watch(func() { output, results, exit, runErr = inProcess(p, input, cfg) }); err != nil {
		return nil, nil, Exit{}, err
	}
	return output, results, exit, runErr
}

// pathInvariants refuses output items whose path leaves their package, and
// two items at the same path and index of one package (kpt's checks).
func pathInvariants(items []*yaml.RNode) error {
	seen := map[[3]string]bool{}
	for _, n := range items {
		p, idx := kptpkg.FileAnnotations(n)
		if err := insidePackage(p); err != nil {
			return err
		}
		key := [3]string{n.GetAnnotations(packagePathAnnotation)[packagePathAnnotation], path.Clean(p), idx}
		if seen[key] {
			return fmt.Errorf("resource at path %q and index %q already exists", key[1], idx)
		}
		seen[key] = true
	}
	return nil
}

// filter runs a function that takes bytes as kpt runs it (kyaml's function
// filter): the items are numbered, written with the functionConfig as a
// ResourceList and the output read back; each output item gets the comments
// and field order of its input back, and new items a path.
func filter(run Runner, input []*yaml.RNode, cfg *yaml.RNode) ([]*yaml.RNode, *yaml.RNode, Exit, error) {
	for i, n := range input {
		if err := setIDs(n, strconv.Itoa(i+1)); err != nil {
			return nil, nil, Exit{}, err
		}
	}
	in, err := EncodeList(input, cfg, nil)
	if err != nil {
		return nil, nil, Exit{}, err
	}
	out, exit, runErr := run.Run(in)
	if runErr == nil && exit.Code != 0 {
		runErr = &ExitError{exit}
	}
	l, err := ReadList(out)
	if err != nil {
		return nil, nil, exit, err
	}
	output := l.Items
	if err := restore(output, input); err != nil {
		return nil, nil, exit, err
	}
	if runErr != nil {
		return output, l.Results, exit, runErr
	}
	if err := defaultPaths(functionScope(cfg), output); err != nil {
		return nil, nil, exit, err
	}
	return output, l.Results, exit, nil
}

// EncodeList writes items, a functionConfig and results (either may be
// nil) as a ResourceList, byte for byte as kyaml's ByteWriter writes one
// (TestWriteListCorpus), the items unchanged. Each item is encoded on its
// own, as the one element of a list (which yaml.v3 writes as it writes it
// among the others): the encoder keeps every event of a document until its
// end, so thousands of items encoded at once cost hundreds of megabytes.
// Items pkg/resourcelist's emitter takes are written by it (the same
// bytes, for a fraction of the cost).
func EncodeList(items []*yaml.RNode, fnConfig, results *yaml.RNode) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("apiVersion: " + kio.ResourceListAPIVersion + "\nkind: " + kio.ResourceListKind + "\nitems:")
	if len(items) == 0 {
		b.WriteString(" []")
	}
	b.WriteString("\n")
	encoded, err := parallel.Join(len(items), ParallelItems, func(i int, buf *bytes.Buffer) error {
		if resourcelist.EmitEntry(buf, items[i].YNode()) {
			return nil
		}
		return encodeDoc(buf, &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{items[i].YNode()}})
	})
	if err != nil {
		return nil, err
	}
	b.Write(encoded)
	for _, f := range []struct {
		key string
		n   *yaml.RNode
	}{{"functionConfig", fnConfig}, {"results", results}} {
		if f.n == nil {
			continue
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: f.key}, f.n.YNode()}}
		if err := encodeDoc(&b, m); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// ParallelItems is how many items a list needs per core for its encoding
// or parsing to use several (parallel.Join, parallel.Do).
const ParallelItems = 64

// encodeDoc writes n as a YAML document with kyaml's encoder settings.
func encodeDoc(b *bytes.Buffer, n *yaml.Node) error {
	e := yaml.NewEncoder(b)
	if err := e.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}); err != nil {
		return err
	}
	return e.Close()
}

// inProcess runs a kptkit function on the items themselves, with the
// effects kpt's function filter has on a function's output: the items
// carry their id annotations while the function runs, and each item it
// changed gets the comments and field order of its input back. Only the
// items the function edits are copied first (kptkit's functions call Edit
// before they change an item: their golden tests hold them to it); the
// others come out as they went in.
func inProcess(p InProcess, input []*yaml.RNode, cfg *yaml.RNode) ([]*yaml.RNode, framework.Results, Exit, error) {
	before := make([]*yaml.RNode, len(input))
	for i, n := range input {
		if err := setIDs(n, strconv.Itoa(i+1)); err != nil {
			return nil, nil, Exit{}, err
		}
	}
	rl := resourcelist.FromNodes(input, cfg)
	rl.OnEdit(func(pos int, n *yaml.Node) {
		if pos < len(before) {
			before[pos] = yaml.NewRNode(snapshot(n))
		}
	})
	krmfn.Apply(p.Function, rl, p.Env)
	results := rl.Results()
	output := rl.Nodes()
	if err := restore(output, before); err != nil {
		return nil, nil, Exit{}, err
	}
	exit := exitOf(p.Function, results)
	fr := frameworkResults(results)
	if exit.Code != 0 {
		return output, fr, exit, &ExitError{exit}
	}
	if err := defaultPaths(functionScope(cfg), output); err != nil {
		return nil, nil, Exit{}, err
	}
	return output, fr, exit, nil
}

// setIDs and clearIDs put on and take off the id annotations kpt's
// function filter numbers items with.
func setIDs(n *yaml.RNode, id string) error {
	for _, a := range []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} { //nolint:staticcheck // kpt sets both
		if err := setAnnotation(n, a, id); err != nil {
			return err
		}
	}
	return nil
}

func clearIDs(n *yaml.RNode) error {
	for _, a := range []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} { //nolint:staticcheck // kpt clears both
		if err := clearAnnotation(n, a); err != nil {
			return err
		}
	}
	return nil
}

func idOf(n *yaml.RNode) (string, bool) {
	a := n.GetAnnotations(kioutil.IdAnnotation, kioutil.LegacyIdAnnotation) //nolint:staticcheck // kpt reads both
	if id, ok := a[kioutil.IdAnnotation]; ok {
		return id, true
	}
	id, ok := a[kioutil.LegacyIdAnnotation] //nolint:staticcheck // kpt reads both
	return id, ok
}

// functionScope is the folder new items of a function go to: that of its
// functionConfig's file (its parent, for a folder named functions).
func functionScope(cfg *yaml.RNode) string {
	if cfg == nil {
		return ""
	}
	p, _ := kptpkg.FileAnnotations(cfg)
	if p == "" {
		return ""
	}
	dir := path.Clean(path.Dir(p))
	if path.Base(dir) == "functions" {
		dir = path.Dir(dir)
	}
	return dir
}
