// Package pipeline edits the pipeline of a kpt package's root Kptfile as
// Porch does for a PackageVariant's spec.pipeline: a ResourceList and an
// owner's functions go in; the Kptfile comes out with the owner's earlier
// functions removed and the new ones put in front, named
// PackageVariant.<owner>.<name>.<index>. Everything else in the pipeline
// keeps its order and comments.
package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Function is prepend-pipeline.
var Function = krmfn.Function{Name: "prepend-pipeline", Run: Run}

// Run reads the functions from the functionConfig and prepends them.
func Run(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	p, ok, rs := PrependFrom(krmfn.ConfigOf(rl))
	if !ok || len(rs) > 0 {
		rl.AddResults(rs...)
		return nil
	}
	rl.AddResults(Apply(rl, p)...)
	return nil
}

var pipelinePath = fieldpath.Path{"pipeline"}

// lists are the pipeline's function lists, in the order a new pipeline
// holds them.
var lists = []string{"mutators", "validators"}

// Apply puts p's functions in front of the root Kptfile's lists, replacing
// those p.Owner added before, and drops lists (and a pipeline) left empty.
func Apply(rl *resourcelist.ResourceList, p Prepend) []result.Result {
	kf, rs := kptfile.RootItem(rl)
	switch {
	case len(rs) > 0:
		return rs
	case kf == nil && p.empty():
		return nil
	case kf == nil:
		return []result.Result{result.Errorf("%q not found: the package has no Kptfile at its root to add %s's functions to",
			kptapi.FileName, p.Owner).WithFile(kptapi.FileName, 0)}
	}
	if rs := check(kf); len(rs) > 0 {
		return rs
	}
	if n := length(kf.Node(), p); n > kptpkg.MaxSteps {
		h := kf.Header()
		return []result.Result{kf.Errorf("pipeline", "%s: %s: with %s's functions the pipeline would hold %s", h.Where(), h, p.Owner, kptpkg.TooManySteps(n))}
	}
	n := kf.Edit()
	add := map[string][]*yaml.Node{"mutators": p.Mutators, "validators": p.Validators}
	pl, err := fieldpath.Ensure(n, pipelinePath)
	if err != nil {
		return []result.Result{kf.Errorf("pipeline", "%s: %v", kf.Header().Where(), err)}
	}
	pl.YNode().Style &^= yaml.FlowStyle // new entries carry comments: block style
	for _, list := range lists {
		merge(pl, list, p.Owner, add[list])
	}
	if len(pl.YNode().Content) == 0 {
		_ = fieldpath.Remove(n, pipelinePath)
	} else {
		kptfile.PlaceField(n.YNode(), "pipeline")
	}
	return nil
}

// check refuses a Kptfile whose pipeline or lists are not what kpt reads.
func check(kf *resourcelist.Item) []result.Result {
	h := kf.Header()
	pl := fieldpath.Lookup(kf.Node(), pipelinePath)
	if pl == nil || yaml.IsMissingOrNull(pl) {
		return nil
	}
	if pl.YNode().Kind != yaml.MappingNode {
		return []result.Result{kf.Errorf("pipeline", "%s: %s: pipeline must be a mapping", h.Where(), h)}
	}
	var rs []result.Result
	for _, list := range lists {
		l := fieldpath.Lookup(pl, fieldpath.Path{list})
		if l != nil && !yaml.IsMissingOrNull(l) && l.YNode().Kind != yaml.SequenceNode {
			rs = append(rs, kf.Errorf("pipeline."+list, "%s: %s: pipeline.%s must be a list", h.Where(), h, list))
		}
	}
	return rs
}

// length is how many functions the Kptfile's pipeline holds once p's are
// in: those of its lists that are not p.Owner's, and p's.
func length(kf *yaml.RNode, p Prepend) int {
	n := len(p.Mutators) + len(p.Validators)
	for _, list := range lists {
		seq := fieldpath.Lookup(kf, fieldpath.Path{"pipeline", list})
		if seq == nil || seq.YNode().Kind != yaml.SequenceNode {
			continue
		}
		for _, fn := range seq.YNode().Content {
			if !Owned(fn, p.Owner) {
				n++
			}
		}
	}
	return n
}

// merge sets one list: the owner's new functions, then every function that
// is not the owner's, in its place. An empty list is removed.
func merge(pl *yaml.RNode, list, owner string, add []*yaml.Node) {
	var kept []*yaml.Node
	seq := fieldpath.Lookup(pl, fieldpath.Path{list})
	if seq != nil && seq.YNode().Kind == yaml.SequenceNode {
		for _, fn := range seq.YNode().Content {
			if !Owned(fn, owner) {
				kept = append(kept, fn)
			}
		}
	}
	content := make([]*yaml.Node, 0, len(add)+len(kept))
	for i, fn := range add {
		content = append(content, named(fn, owner, i))
	}
	content = append(content, kept...)
	if len(content) == 0 {
		_ = fieldpath.Remove(pl, fieldpath.Path{list})
		return
	}
	if seq == nil || seq.YNode().Kind != yaml.SequenceNode {
		seq = yaml.NewRNode(&yaml.Node{Kind: yaml.SequenceNode})
		_ = fieldpath.Set(pl, fieldpath.Path{list}, seq)
	}
	seq.YNode().Content = content
	seq.YNode().Style &^= yaml.FlowStyle
	sortLists(pl.YNode())
}

// FuncName is the name an owner's i-th function gets in the Kptfile.
func FuncName(owner, name string, i int) string {
	return fmt.Sprintf("%s.%s.%s.%d", porch.VariantFuncPrefix, owner, name, i)
}

// Owned reports whether a Kptfile function entry was added by owner: its
// name splits on "." into exactly PackageVariant, the owner, anything, and an
// integer.
func Owned(fn *yaml.Node, owner string) bool {
	name, ok := fieldpath.String(yaml.NewRNode(fn), fieldpath.Path{"name"})
	if !ok {
		return false
	}
	parts := strings.Split(name, ".")
	if len(parts) != 4 || parts[0] != porch.VariantFuncPrefix || parts[1] != owner {
		return false
	}
	_, err := strconv.Atoi(parts[3])
	return err == nil
}

// named returns a full copy of the entry with its name set to the owner's
// four-part name (a new name field goes first). An entry without a comment
// gets one naming the owner: kpt copies comments onto list entries by
// position, and would otherwise give the new entry the comment of whatever
// entry stood in its place before.
func named(fn *yaml.Node, owner string, i int) *yaml.Node {
	c := yaml.CopyYNode(fn)
	if c.HeadComment == "" {
		c.HeadComment = "# added by " + owner
	}
	rn := yaml.NewRNode(c)
	name, _ := fieldpath.String(rn, fieldpath.Path{"name"})
	full := fieldpath.NewString(FuncName(owner, name, i)).YNode()
	if fieldpath.Lookup(rn, fieldpath.Path{"name"}) != nil {
		_ = fieldpath.Set(rn, fieldpath.Path{"name"}, yaml.NewRNode(full))
		return c
	}
	key := fieldpath.NewString("name").YNode()
	c.Content = append([]*yaml.Node{key, full}, c.Content...)
	return c
}

// sortLists puts a mutators list created here before the validators, as kpt
// writes them; lists that existed keep their order.
func sortLists(pl *yaml.Node) {
	c := pl.Content
	mi, vi := -1, -1
	for i := 0; i+1 < len(c); i += 2 {
		switch c[i].Value {
		case "mutators":
			mi = i
		case "validators":
			vi = i
		}
	}
	if mi > vi && vi >= 0 && c[mi].Line == 0 {
		c[mi], c[mi+1], c[vi], c[vi+1] = c[vi], c[vi+1], c[mi], c[mi+1]
	}
}
