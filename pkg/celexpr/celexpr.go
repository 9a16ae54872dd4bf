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
	costLimit uint64
	cache     map[string]compiled
}

type compiled struct {
	prog *Program
	err  error
}

// NewEnv returns an environment declaring vars, with the strings extension
// and Porch's options (homogeneous aggregate literals, UTC by default).
func NewEnv(costLimit uint64, vars ...Var) (*Env, error) {
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.ParserExpressionSizeLimit(maxExprLen),
		ext.Strings(),
	}
	for _, v := range vars {
		opts = append(opts, cel.Variable(v.Name, v.Type))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot create the CEL environment: %w", err)
	}
	return &Env{env: env, costLimit: costLimit, cache: map[string]compiled{}}, nil
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
	return &Program{prg: prg, limit: e.costLimit}, nil
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
	prg   cel.Program
	limit uint64
}

// Eval runs the program over the variables' values and returns its string.
func (p *Program) Eval(vars interpreter.Activation) (string, error) {
	val, _, err := p.prg.Eval(vars)
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
