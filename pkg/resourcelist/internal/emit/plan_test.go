package emit

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}
}

// TestPlan: what a plan writes, whole (Bytes) and streamed (WriteTo), and
// the error of an item that cannot be encoded, which adds nothing.
func TestPlan(t *testing.T) {
	t.Parallel()
	const src = "a: 1\nb: 2\n# c\nd: 3"
	tests := []struct {
		name    string
		plan    func(p *Plan) error
		want    string
		wantErr string
	}{
		{"input ranges, a line break after the last line", func(p *Plan) error {
			p.Lines(0, 10)
			p.Lines(14, len(src))
			return nil
		}, "a: 1\nb: 2\nd: 3\n", ""},
		{"text, items and own bytes in order", func(p *Plan) error {
			p.Text("items:\n")
			if err := p.Item(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("on"), str("yes")}}, 1, 0); err != nil {
				return err
			}
			p.Own([]byte("- b: 2\n"))
			p.Own(nil)
			return p.Item(&yaml.Node{Kind: yaml.MappingNode, HeadComment: "# one\n# two", Content: []*yaml.Node{str("c"), str("d")}}, 3, 1)
		}, "items:\n- \"on\": \"yes\"\n- b: 2\n  - # two\n    c: d\n", ""},
		{"an item yaml.v3 cannot encode", func(p *Plan) error {
			p.Text("items:\n")
			return p.Item(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("a"), {Kind: yaml.AliasNode}}}, 1, 0)
		}, "items:\n", "cannot encode an item"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := NewPlan([]byte(src))
			err := tc.plan(p)
			if got := errText(err); got != tc.wantErr {
				t.Errorf("error %q, want %q", got, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, string(p.Bytes())); diff != "" {
				t.Errorf("Bytes (-want +got):\n%s", diff)
			}
			var b bytes.Buffer
			n, err := p.WriteTo(&b)
			if err != nil || n != int64(len(tc.want)) || b.String() != tc.want {
				t.Errorf("WriteTo wrote %d bytes %q (%v), want %q", n, b.String(), err, tc.want)
			}
		})
	}
}

// A writer's error stops WriteTo, which says how much it wrote.
func TestPlanWriteToFails(t *testing.T) {
	t.Parallel()
	p := NewPlan([]byte("a: 1\n"))
	p.Lines(0, 5)
	p.Text("b: 2\n")
	p.Own([]byte("c: 3\n"))
	w := &failing{left: 2}
	n, err := p.WriteTo(w)
	if n != 10 || !errors.Is(err, errFull) || w.b.String() != "a: 1\nb: 2\n" {
		t.Errorf("WriteTo = %d, %v; wrote %q", n, err, w.b.String())
	}
}

var errFull = errors.New("full")

// failing accepts left writes, then fails.
type failing struct {
	b    bytes.Buffer
	left int
}

func (f *failing) Write(b []byte) (int, error) {
	if f.left == 0 {
		return 0, errFull
	}
	f.left--
	return f.b.Write(b)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
