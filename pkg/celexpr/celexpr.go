// Package celexpr compiles and runs CEL expressions that compute strings: an
// expression text and the variables it may use go in; a Program that turns
// the variables' values into a string (or an error) comes out. Every
// evaluation has a cost limit, the cel-go strings extension is available, and
// an Env compiles each distinct expression once, however often it is used.
package celexpr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// DefaultCostLimit bounds the work of one evaluation: enough for any
// reasonable string computation, far too little for a runaway comprehension.
const DefaultCostLimit = 1_000_000

// maxExprLen bounds the length of an expression, in code points.
const maxExprLen = 10_000

// Var declares a variable expressions may use.
type Var struct {
	Name string
	Type *cel.Type
}

// String and Dyn are the variable types Porch's templates use.
var (
	String = cel.StringType
	Dyn    = cel.DynType
)

// Env compiles expressions over a fixed set of variables. It is not safe for
// concurrent use.
type Env struct {
	env       *cel.Env
	vars      map[string]bool
	costLimit uint64
	bound     uint64 // 0: the values' sizes are not known
	cache     map[string]compiled
}

type compiled struct {
	prog *Program
	err  error
}

// NewEnv returns an environment declaring vars, with the strings extension
// and Porch's options (homogeneous aggregate literals, UTC by default).
func NewEnv(costLimit uint64, vars ...Var) (*Env, error) {
	declared := map[string]bool{}
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.ParserExpressionSizeLimit(maxExprLen),
		ext.Strings(),
	}
	for _, v := range vars {
		opts = append(opts, cel.Variable(v.Name, v.Type))
		declared[v.Name] = true
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot create the CEL environment: %w", err)
	}
	return &Env{env: env, vars: declared, costLimit: costLimit, cache: map[string]compiled{}}, nil
}

// Compile returns the program of expr, compiling it on first use. The
// error names every problem with its line and column.
func (e *Env) Compile(expr string) (*Program, error) {
	if c, ok := e.cache[expr]; ok {
		return c.prog, c.err
	}
	p, err := e.compile(expr)
	e.cache[expr] = compiled{prog: p, err: err}
	return p, err
}

// Len returns how many distinct expressions the environment has compiled.
func (e *Env) Len() int { return len(e.cache) }

func (e *Env) compile(expr string) (*Program, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, errors.New("empty expression")
	}
	ast, iss := e.env.Compile(expr)
	if iss.Err() != nil {
		return nil, issuesError(iss)
	}
	out := ast.OutputType()
	if !out.IsExactType(types.StringType) && !out.IsExactType(types.DynType) {
		return nil, fmt.Errorf("expression returns %s, not a string", out)
	}
	prg, err := e.env.Program(ast, cel.CostLimit(e.costLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, fmt.Errorf("cannot build the program: %w", err)
	}
	p := &Program{ast: ast, prg: prg, limit: e.costLimit}
	e.prove(p)
	return p, nil
}

// Bound declares that no value the programs will see, nor anything inside
// one, is larger than n: no string longer than n characters, no list or map
// with more than n entries. Every program, compiled before or after, whose
// worst-case cost over such values is within a tenth of the cost limit then
// runs without counting its cost. n = 0 withdraws the bound.
//
// Values larger than the bound void the guarantee: pass the size of
// whatever the values are made from (the input they were read from).
func (e *Env) Bound(n uint64) {
	e.bound = n
	for _, c := range e.cache {
		if c.prog != nil {
			e.prove(c.prog)
		}
	}
}

// prove gives p a program that does not count its cost when CEL's estimate
// of its worst case, over values no larger than the bound, is within a tenth
// of the limit. The margin covers the few constant costs the estimate and
// the evaluation count differently (a field of a dyn value, for one).
func (e *Env) prove(p *Program) {
	p.fast = nil
	if e.bound == 0 {
		return
	}
	est, err := e.env.EstimateCost(p.ast, sizes{bound: e.bound, vars: e.vars})
	if err != nil || est.Max > e.costLimit/10 {
		return
	}
	if fast, err := e.env.Program(p.ast, cel.EvalOptions(cel.OptOptimize)); err == nil {
		p.fast = fast
	}
}

// sizes estimates the size of a variable's value, or of a value inside one,
// as the bound; anything else (what an expression computes) is left to CEL,
// which derives it or, failing that, assumes the worst.
type sizes struct {
	bound uint64
	vars  map[string]bool
}

func (s sizes) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if path := n.Path(); len(path) > 0 && s.vars[path[0]] {
		return &checker.SizeEstimate{Min: 0, Max: s.bound}
	}
	return nil
}

func (sizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// issuesError joins CEL's issues on one line each: `1:5: Syntax error: …`.
func issuesError(iss *cel.Issues) error {
	var msgs []string
	for _, e := range iss.Errors() {
		loc := e.Location
		msgs = append(msgs, fmt.Sprintf("%d:%d: %s", loc.Line(), loc.Column()+1, e.Message))
	}
	return errors.New(strings.Join(msgs, "; "))
}

// Program is a compiled expression.
type Program struct {
	ast   *cel.Ast
	prg   cel.Program // counts the cost and stops at the limit
	fast  cel.Program // does not count; nil unless proven within the limit
	limit uint64
}

// Counted reports whether evaluations count their cost as they run: true
// unless the Env's bound proves the program within the limit.
func (p *Program) Counted() bool { return p.fast == nil }

// Eval runs the program over the variables' values and returns its string.
func (p *Program) Eval(vars interpreter.Activation) (string, error) {
	prg := p.prg
	if p.fast != nil {
		prg = p.fast
	}
	val, _, err := prg.Eval(vars)
	if err != nil {
		return "", evalError(err, p.limit)
	}
	return stringOf(val)
}

func evalError(err error, limit uint64) error {
	var cancelled interpreter.EvalCancelledError
	if errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded {
		return fmt.Errorf("evaluation exceeded the cost limit of %d (the expression does too much work)", limit)
	}
	if msg, ok := strings.CutPrefix(err.Error(), "internal error: "); ok {
		// cel-go reports a panic during evaluation this way: it is the
		// expression's failure, not ours.
		return fmt.Errorf("evaluation failed: %s", msg)
	}
	return err
}

// stringOf returns the string a program computed, or says what it computed
// instead.
func stringOf(val ref.Val) (string, error) {
	if s, ok := val.(types.String); ok {
		return string(s), nil
	}
	return "", fmt.Errorf("expression returned non-string value: %v (%s)", val, val.Type().TypeName())
}

// Vars is an activation over a fixed set of named values.
type Vars map[string]any

// ResolveName returns the value of a variable.
func (v Vars) ResolveName(name string) (any, bool) {
	x, ok := v[name]
	return x, ok
}

// Parent returns nil: Vars stand alone.
func (Vars) Parent() interpreter.Activation { return nil }
