package params_test

import (
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/deps/params"
)

// FuzzLock merges and locks parameters whose values are what the fuzzer
// writes (expressions included): no panic; a cycle is reported whenever
// locking would loop; a locked value holds no ${...} it could expand.
func FuzzLock(f *testing.F) {
	for _, s := range [][3]string{
		{"${b}", "${c}", "x"}, {"${b}", "${a}", "${a}${b}"}, {"${", "}", "${}"}, {"#{1}", "${c:out}", "${b}-${c}"},
		{"${a|web}", "${ b }", "$${c}"},
	} {
		f.Add(s[0], s[1], s[2], "web")
	}
	f.Fuzz(func(t *testing.T, a, b, c, component string) {
		s := params.Merge([]params.Layer{{Source: "Parameters/p", Params: []P{
			{Name: "a", Value: anyScalar(a)}, {Name: "b", Value: anyScalar(b)}, {Name: "c", Value: anyScalar(c), Component: component},
		}}})
		l, problems := s.Lock(func(string) string { return "" })
		for _, q := range s.Names() {
			v, _ := l.Get(q)
			if strings.Contains(v.Value, "${a}") && len(problems) == 0 && !strings.Contains(a+b+c, ":") {
				t.Fatalf("%s = %q: ${a} left unexpanded without a problem", q, v.Value)
			}
		}
		_, _ = l.Scope(component, []P{{Name: "a"}, {Name: "b", Value: anyScalar(c)}}, []params.Output{{Package: "c", Name: "out", Value: "o"}})
	})
}
