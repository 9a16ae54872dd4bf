package pkger

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// chartKinds are the kinds of dashboard charts pkger knows.
var chartKinds = map[string]bool{
	"gauge": true, "geo": true, "heatmap": true, "histogram": true, "markdown": true, "mosaic": true,
	"scatter": true, "single_stat": true, "single_stat_plus_line": true, "table": true, "xy": true, "band": true,
}

// chartAxes are the axes each chart kind must have.
var chartAxes = map[string][]string{
	"heatmap":               {"x", "y"},
	"histogram":             {"x"},
	"scatter":               {"x", "y"},
	"single_stat_plus_line": {"x", "y"},
	"xy":                    {"x", "y"},
}

var geometries = map[string]bool{"line": true, "step": true, "stacked": true, "monotoneX": true, "bar": true}

// chart checks one dashboard chart (pkger's parseChart and validProperties);
// fields are relative to the chart.
func chart(c value) []failure {
	kind := c.norm("kind")
	if !chartKinds[kind] {
		return []failure{fail("kind", "invalid chart kind provided: %s", kind)}
	}
	out := domains(c)
	if kind == "markdown" {
		return out
	}
	for _, dim := range []string{"width", "height"} {
		if n, _ := c.num(dim); n <= 0 {
			out = append(out, fail(dim, "must be greater than 0"))
		}
	}
	colors := c.list("colors")
	for i, col := range colors {
		if col.str("hex") == "" {
			out = append(out, fail(fmt.Sprintf("colors[%d].hex", i), "a color must have a hex value provided"))
		}
	}
	if kind == "gauge" {
		out = append(out, missing(colors, "type", "colors", "type", "min", "max")...)
	}
	out = append(out, missing(c.list("axes"), "name", "axes", "axis", chartAxes[kind]...)...)
	return append(out, layout(kind, c)...)
}

// layout checks the geometry, position and table options a chart kind has.
func layout(kind string, c value) []failure {
	var out []failure
	if kind == "xy" {
		if g := c.str("geom"); !geometries[g] {
			msg := "type not found"
			if g != "" {
				msg = "type provided is not supported"
			}
			out = append(out, fail("geom", "%s: %q", msg, g))
		}
	}
	if kind == "xy" || kind == "single_stat_plus_line" {
		if pos := strings.ToLower(c.str("position")); pos != "" && pos != "overlaid" && pos != "stacked" {
			out = append(out, fail("position", "invalid position supplied %q; valid positions is one of [overlaid, stacked]", pos))
		}
	}
	if kind == "table" {
		switch c.field("tableOptions").str("wrapping") {
		case "", "single-line", "truncate", "wrap":
		default:
			out = append(out, fail("tableOptions.wrapping", `chart table option should 1 in ["single-line", "truncate", "wrap"]`))
		}
	}
	return out
}

// domains checks the axes' domains: numbers (pkger parses each with
// strconv.ParseFloat and reports its error).
func domains(c value) []failure {
	var out []failure
	for i, a := range c.list("axes") {
		d := a.get("domain")
		if d == nil || d.Kind != yaml.SequenceNode {
			continue
		}
		for j, e := range d.Content {
			e = fieldpath.Deref(e)
			if e == nil || e.Kind != yaml.ScalarNode || e.Tag != yaml.NodeTagString {
				continue // numbers parse; pkger skips what is not a string or number
			}
			if _, err := strconv.ParseFloat(e.Value, 64); err != nil {
				out = append(out, fail(fmt.Sprintf("axes[%d].domain[%d]", i, j), "%s", err))
			}
		}
	}
	return out
}

// missing reports each of want that no item has as its key, as pkger
// reports a gauge's color types and a chart's axes: `<what> not found: "x"`
// at field.
func missing(items []value, key, field, what string, want ...string) []failure {
	have := map[string]bool{}
	for _, it := range items {
		have[it.str(key)] = true
	}
	var out []failure
	for _, w := range want {
		if !have[w] {
			out = append(out, fail(field, "%s not found: %q", what, w))
		}
	}
	return out
}
