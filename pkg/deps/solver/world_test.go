package solver_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kptkit/kptkit/pkg/deps/solver"
)

// world is a toy catalog for tests: packages with numbered versions
// (candidate i is the i-th highest), and dependencies written as the
// versions they allow: "b:1,2" needs b at version 1 or 2; "b" needs any b.
type world struct {
	names    []string // by id; 0 is the root
	ids      map[string]int
	versions [][]string   // by id: candidate -> version label
	deps     [][][]string // by id, candidate: dependency specs
	memo     map[string]*solver.Incompat
	labels   map[*solver.Incompat]string
}

// newWorld reads lines "pkg@ver: dep, dep" (candidates in the order given,
// highest first).
func newWorld(spec string) *world {
	w := &world{ids: map[string]int{"root": 0}, names: []string{"root"}, versions: [][]string{{"root"}},
		deps: [][][]string{{nil}}, memo: map[string]*solver.Incompat{}, labels: map[*solver.Incompat]string{}}
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		head, rest, _ := strings.Cut(line, ":")
		name, ver, _ := strings.Cut(strings.TrimSpace(head), "@")
		id := w.id(name)
		w.versions[id] = append(w.versions[id], ver)
		var ds []string
		for _, d := range strings.Split(rest, ";") {
			if d = strings.TrimSpace(d); d != "" {
				ds = append(ds, d)
			}
		}
		w.deps[id] = append(w.deps[id], ds)
	}
	return w
}

func (w *world) id(name string) int {
	if id, ok := w.ids[name]; ok {
		return id
	}
	id := len(w.names)
	w.ids[name] = id
	w.names = append(w.names, name)
	w.versions = append(w.versions, nil)
	w.deps = append(w.deps, nil)
	return id
}

func (w *world) Size(p int) int { return len(w.versions[p]) }

func (w *world) Prefer(_ int, allowed solver.Set, _ []*solver.Incompat) int { return allowed.First() }

// set reads "b:1,2" into b's candidate set.
func (w *world) set(spec string) (int, solver.Set) {
	name, vers, ok := strings.Cut(spec, ":")
	d := w.id(name)
	n := w.Size(d)
	if !ok {
		return d, solver.All(n)
	}
	var members []int
	for _, v := range strings.Split(vers, ",") {
		if i := slices.Index(w.versions[d], strings.TrimSpace(v)); i >= 0 {
			members = append(members, i)
		}
	}
	return d, solver.Of(n, members...)
}

func (w *world) Dependencies(p, v int) []*solver.Incompat {
	var out []*solver.Incompat
	for _, spec := range w.deps[p][v] {
		key := fmt.Sprintf("%d %s", p, spec)
		if in, ok := w.memo[key]; ok {
			out = append(out, in)
			continue
		}
		var same []int
		for u, ds := range w.deps[p] {
			if slices.Contains(ds, spec) {
				same = append(same, u)
			}
		}
		d, allowed := w.set(spec)
		in := solver.External(len(w.labels), solver.Require(p, solver.Of(w.Size(p), same...)), solver.Forbid(d, allowed))
		w.labels[in] = w.names[p] + " needs " + spec
		w.memo[key] = in
		out = append(out, in)
	}
	return out
}

// root returns the root's requirement of spec.
func (w *world) root(spec string) *solver.Incompat {
	d, allowed := w.set(spec)
	in := solver.External(len(w.labels), solver.Require(0, solver.All(1)), solver.Forbid(d, allowed))
	w.labels[in] = "root needs " + spec
	return in
}

// forbid is an external {pkg ∈ versions}.
func (w *world) forbid(label, spec string) *solver.Incompat {
	d, set := w.set(spec)
	in := solver.External(len(w.labels), solver.Require(d, set))
	w.labels[in] = label
	return in
}

// chosen renders a solution as "a@1 b@2" sorted by name.
func (w *world) chosen(sol *solver.Solution) string {
	var out []string
	for p, v := range sol.Chosen {
		out = append(out, w.names[p]+"@"+w.versions[p][v])
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// explain lists the labels of the leaves of a failure, sorted.
func (w *world) explain(ins []*solver.Incompat) string {
	var out []string
	for _, in := range ins {
		if l, ok := w.labels[in]; ok {
			out = append(out, l)
		} else {
			out = append(out, fmt.Sprintf("?%d", in.ID))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
