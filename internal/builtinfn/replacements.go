package builtinfn

import (
	replacements "github.com/GoogleContainerTools/kpt-functions-catalog/functions/go/apply-replacements/replacements"
	sdk "github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/api/filters/replacement"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// applyReplacementsDirect is apply-replacements v0.1.1's processor
// (replacements.Replacements.Process) on the nodes parseSDK wrapped: the
// functionConfig is read by the catalog's own Config, and kustomize's
// replacement.Filter (the version the catalog requires) runs on the items'
// nodes as they are, where the catalog's Transform writes every item with
// the SDK, parses it with kyaml, runs the same filter, writes it with
// kyaml and parses it with the SDK. An item whose nodes that round trip
// could change (roundTrips) takes it, as the catalog does; the others come
// out the same without it (TestApplyReplacementsCorpus, FuzzApplyReplacements).
// A filter that fails has the list run anew on the SDK path (errRedo).
func applyReplacementsDirect(rl *sdk.ResourceList, nodes wrapped) (bool, error) {
	r := replacements.Replacements{}
	if err := r.Config(rl.FunctionConfig); err != nil {
		rl.LogResult(err)
		return false, nil
	}
	in := make([]*yaml.RNode, len(rl.Items))
	trip := make([]bool, len(rl.Items))
	for i, o := range rl.Items {
		n := nodes.nodeOf(o)
		if trip[i] = n == nil || roundTrips(n); trip[i] {
			rn, err := yaml.Parse(o.String())
			if err != nil {
				rl.LogResult(err)
				return false, nil
			}
			in[i] = rn
			continue
		}
		in[i] = yaml.NewRNode(n)
	}
	out, err := replacement.Filter{Replacements: r.Replacements}.Filter(in)
	if err != nil {
		// the filter may have set targets before it failed, on the items
		// themselves (the catalog's are copies, and come out as they were)
		return false, errRedo
	}
	items := make([]*sdk.KubeObject, len(out))
	for i, n := range out {
		if trip[i] {
			o, err := sdk.ParseKubeObject([]byte(n.MustString()))
			if err != nil {
				return false, errRedo // the items are changed, as above
			}
			items[i] = o
			continue
		}
		items[i] = kubeObject(n)
		nodes[items[i]] = n.YNode()
	}
	rl.Items = items
	return true, nil
}

// roundTrips: the item's nodes might not come out of the catalog's round
// trip (SDK writer, kyaml parser, kyaml writer, SDK parser) as they went
// in: a comment on the item's own node (written alone, it moves to the
// item's first key), a foot comment anywhere (yaml.v3 places them anew
// when it parses its own output), an anchor or an alias (an item written
// alone loses the anchors of the others), an empty null (the value of `{a}`
// is written as an empty quoted string, a string when parsed again).
func roundTrips(n *yaml.Node) bool {
	return n.HeadComment != "" || n.LineComment != "" || unsettled(n)
}

func unsettled(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || n.FootComment != "" || (n.Kind == yaml.ScalarNode && n.Value == "" && n.Tag == yaml.NodeTagNull) {
		return true
	}
	for _, c := range n.Content {
		if unsettled(c) {
			return true
		}
	}
	return false
}
