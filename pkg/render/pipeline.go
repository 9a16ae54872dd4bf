package render

import (
	"errors"
	"fmt"
	"path"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// errAllowExec is kpt's refusal of exec functions without --allow-exec.
var errAllowExec = errors.New("must run with `--allow-exec` option to allow running function binaries")

// runPipeline runs the pipeline of the package at dir over input: its
// mutators in turn, then its validators on copies.
func (r *renderer) runPipeline(dir string, input []*yaml.RNode) ([]*yaml.RNode, error) {
	name := r.display(dir)
	r.emit(Event{Package: name})
	fns := r.tree.fns[dir]
	if len(fns) == 0 {
		if err := areKRM(input); err != nil {
			return nil, r.fail(dir, nil, fmt.Errorf("input resource list must contain only KRM resources: %s", err))
		}
		return input, nil
	}
	var mutators, validators []*Function
	for i := range fns {
		if fns[i].Validator {
			validators = append(validators, &fns[i])
		} else {
			mutators = append(mutators, &fns[i])
		}
	}
	// kpt makes the mutators' runners before it runs any.
	runners := make([]Runner, len(mutators))
	for i, f := range mutators {
		run, err := r.runner(f)
		if err != nil {
			return nil, r.fail(dir, f, err)
		}
		runners[i] = run
	}
	var err error
	for i, f := range mutators {
		if input, err = r.mutate(dir, f, runners[i], input); err != nil {
			return nil, err
		}
	}
	for _, f := range validators {
		if err := r.validate(dir, f, input); err != nil {
			return nil, err
		}
	}
	r.emit(Event{Package: name, End: true})
	return input, nil
}

// runner finds the runner of an entry, refusing exec without AllowExec.
func (r *renderer) runner(f *Function) (Runner, error) {
	if f.Exec != "" && !r.opts.AllowExec {
		return nil, errAllowExec
	}
	if r.opts.Runtime == nil {
		return unrunnable{fmt.Errorf("no runtime runs %s", f)}, nil
	}
	run, err := r.opts.Runtime.Runner(*f)
	if u := (*Unhandled)(nil); errors.As(err, &u) {
		err = fmt.Errorf("no runtime runs %s", f)
		if u.Reason != "" {
			err = fmt.Errorf("no runtime runs %s: %s", f, u.Reason)
		}
	}
	if err != nil {
		// kpt finds out that a function cannot run when it runs it (the
		// earlier steps have run, this one has a result).
		return unrunnable{err}, nil
	}
	return run, nil
}

// unrunnable is a function no runtime can run.
type unrunnable struct{ err error }

func (u unrunnable) Run([]byte) ([]byte, Exit, error) { return nil, Exit{}, u.err }

// mutate runs one mutator: on the items its selectors pick (merged back
// afterwards), with its functionConfig read from the items when configPath
// names one (an earlier step may have changed it).
func (r *renderer) mutate(dir string, f *Function, run Runner, input []*yaml.RNode) ([]*yaml.RNode, error) {
	cfg, err := r.fileConfig(f)
	if err != nil {
		return nil, r.fail(dir, f, err)
	}
	if f.ConfigPath != "" {
		for _, n := range input {
			if filePath(n) == f.ConfigPath && n.GetAnnotations(packagePathAnnotation)[packagePathAnnotation] == r.annotationPath(dir) {
				cfg = n
			}
		}
	}
	selected := input
	if f.Selected() {
		if err := setResourceIDs(input); err != nil {
			return nil, r.fail(dir, f, err)
		}
		selected = Select(input, f.Selectors, f.Exclusions)
	}
	output, err := r.step(dir, f, run, selected, cfg)
	if err != nil {
		return nil, err
	}
	if !f.Selected() {
		return output, nil
	}
	merged := merge(output, selected, input)
	if err := clearResourceIDs(merged); err != nil {
		return nil, r.fail(dir, f, err)
	}
	return merged, nil
}

// validate runs one validator on copies of the items it selects; its
// output is dropped.
func (r *renderer) validate(dir string, f *Function, input []*yaml.RNode) error {
	selected := Select(input, f.Selectors, f.Exclusions)
	run, err := r.runner(f)
	if err != nil {
		return r.fail(dir, f, err)
	}
	cfg, err := r.fileConfig(f)
	if err != nil {
		return r.fail(dir, f, err)
	}
	copies := make([]*yaml.RNode, len(selected))
	for i, n := range selected {
		copies[i] = n.Copy()
	}
	_, err = r.step(dir, f, run, copies, cfg)
	return err
}

// fileConfig is the entry's functionConfig as kpt reads it before running:
// for configPath, the file's first document as written.
func (r *renderer) fileConfig(f *Function) (*yaml.RNode, error) {
	if f.ConfigPath == "" {
		if f.Config == nil {
			return nil, nil
		}
		return f.Config.Copy(), nil
	}
	b, ok := r.files[path.Join(f.Package, f.ConfigPath)]
	if !ok {
		return nil, fmt.Errorf("missing function config %q", f.ConfigPath)
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("invalid function config %q %w", f.ConfigPath, err)
	}
	return n, nil
}

// fail records why the render stops: at a step of the package at dir (f
// nil: outside any step).
func (r *renderer) fail(dir string, f *Function, err error) *Failure {
	var failure *Failure
	if errors.As(err, &failure) {
		return failure
	}
	failure = &Failure{Package: dir, Message: err.Error()}
	if f != nil {
		failure.Image, failure.Exec, failure.List, failure.Index = f.Image, f.Exec, f.List(), f.Index
	}
	return failure
}
