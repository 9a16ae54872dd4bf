package celexpr

import "github.com/google/cel-go/interpreter"

// CountedCost evaluates p with its cost counted, whether or not it needs to
// be, and returns the cost.
func CountedCost(p *Program, vars interpreter.Activation) uint64 {
	_, det, _ := p.prg.Eval(vars)
	if det == nil || det.ActualCost() == nil {
		return 0
	}
	return *det.ActualCost()
}
