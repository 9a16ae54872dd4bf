package v1alpha1_test

// TestSchemas writes a JSON Schema for each of kptkit's kinds into
// schemas/v1alpha1/ from the Go types (fields, types, doc comments), and
// fails when the files differ from what the types give: change a type, run
// `go test ./pkg/api/v1alpha1 -run TestSchemas -update`, commit both.
// Editors validate configs with them: a file's first line
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/kptkit/kptkit/main/schemas/v1alpha1/setpackagecontext.json

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
)

var update = flag.Bool("update", false, "rewrite the schemas")

// schemaKinds are the kinds given a schema, with their Go types.
var schemaKinds = []struct {
	kind string
	typ  any
}{
	{v1alpha1.KindSetPackageContext, v1alpha1.SetPackageContext{}},
	{v1alpha1.KindPrependPipeline, v1alpha1.PrependPipeline{}},
	{v1alpha1.KindInjectConfig, v1alpha1.InjectConfig{}},
	{v1alpha1.KindApplyStack, v1alpha1.ApplyStack{}},
	{v1alpha1.KindResolveDeps, v1alpha1.ResolveDeps{}},
	{v1alpha1.KindStack, v1alpha1.Stack{}},
	{v1alpha1.KindCatalogPackage, v1alpha1.CatalogPackage{}},
	{v1alpha1.KindInstalledPackage, v1alpha1.InstalledPackage{}},
	{v1alpha1.KindPackageInstall, v1alpha1.PackageInstall{}},
	{v1alpha1.KindInstallPlan, v1alpha1.InstallPlan{}},
	{v1alpha1.KindParameters, v1alpha1.Parameters{}},
}

// SchemaURL is where a kind's schema is published.
func schemaURL(kind string) string {
	return "https://raw.githubusercontent.com/kptkit/kptkit/main/schemas/v1alpha1/" + strings.ToLower(kind) + ".json"
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	docs := readDocs(t, ".", "../meta", "../porch", "../kptfile")
	dir := filepath.Join("..", "..", "..", "schemas", "v1alpha1")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	for _, k := range schemaKinds {
		name := strings.ToLower(k.kind) + ".json"
		want[name] = true
		got := kindSchema(k.kind, reflect.TypeOf(k.typ), docs)
		path := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./pkg/api/v1alpha1 -run TestSchemas -update writes it)", err)
		}
		if d := cmp.Diff(string(b), string(got)); d != "" {
			t.Errorf("%s differs from the Go types (-file +types); go test ./pkg/api/v1alpha1 -run TestSchemas -update rewrites it:\n%s", path, d)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s: no kind has this schema (remove it)", filepath.Join(dir, e.Name()))
		}
	}
}

// TestSchemasAcceptExamples: the examples' configs of each kind have only
// the fields their schema names (the schemas are as strict as the
// functions: an unknown field is an error).
func TestSchemasAcceptExamples(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "examples", "*", "*.yaml"))
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
		if err != nil {
			continue
		}
		for _, n := range nodes {
			for _, k := range schemaKinds {
				if n.GetKind() != k.kind || n.GetApiVersion() != v1alpha1.APIVersion {
					continue
				}
				seen++
				var s map[string]any
				if err := json.Unmarshal(kindSchema(k.kind, reflect.TypeOf(k.typ), nil), &s); err != nil {
					t.Fatal(err)
				}
				for _, p := range unknownFields(n.YNode(), s, "") {
					t.Errorf("%s: %s/%s: field %s is not in the schema", f, k.kind, n.GetName(), p)
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no example holds one of kptkit's kinds")
	}
}

// unknownFields lists the mapping keys below n that schema s does not name
// where it forbids others.
func unknownFields(n *yaml.Node, s map[string]any, path string) []string {
	var out []string
	switch n.Kind {
	case yaml.MappingNode:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		closed := s["additionalProperties"] == false
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			switch sub, ok := props[k].(map[string]any); {
			case ok:
				out = append(out, unknownFields(v, sub, path+"."+k)...)
			case extra != nil:
				out = append(out, unknownFields(v, extra, path+"."+k)...)
			case closed:
				out = append(out, strings.TrimPrefix(path+"."+k, "."))
			}
		}
	case yaml.SequenceNode:
		if items, ok := s["items"].(map[string]any); ok {
			for _, c := range n.Content {
				out = append(out, unknownFields(c, items, path+"[]")...)
			}
		}
	}
	return out
}

// kindSchema is the JSON Schema of a kind: its type's, with apiVersion and
// kind fixed and required.
func kindSchema(kind string, t reflect.Type, docs map[string]string) []byte {
	g := &schemaGen{docs: docs}
	s := g.schema(t)
	props := s["properties"].(map[string]any)
	props["apiVersion"] = map[string]any{"const": v1alpha1.APIVersion}
	props["kind"] = map[string]any{"const": kind}
	s["required"] = []string{"apiVersion", "kind"}
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = schemaURL(kind)
	s["title"] = kind + " (" + v1alpha1.APIVersion + ")"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// schemaGen turns Go types into JSON Schema, reading fields by their yaml
// tags (as pkg/decode does) and describing them by their doc comments.
type schemaGen struct{ docs map[string]string }

var (
	anyScalar  = reflect.TypeFor[decode.AnyScalar]()
	node       = reflect.TypeFor[yaml.Node]()
	rnode      = reflect.TypeFor[yaml.RNode]()
	pipeline   = reflect.TypeFor[kptfile.Pipeline]()
	lifecycles = reflect.TypeFor[v1alpha1.Lifecycle]()
)

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case anyScalar:
		return map[string]any{"type": []string{"string", "number", "boolean"}}
	case node, rnode:
		return map[string]any{}
	case pipeline:
		fn := map[string]any{"type": "object", "description": "a kpt function: image or exec, with configPath, configMap, name, selectors, exclude"}
		return map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"mutators":   map[string]any{"type": "array", "items": fn},
			"validators": map[string]any{"type": "array", "items": fn},
		}}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object"}
		}
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.object(t)
	}
	return map[string]any{}
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if opts == "inline" {
			for k, v := range g.object(f.Type)["properties"].(map[string]any) {
				props[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		s := g.schema(f.Type)
		if t.Name() == "ResolveDeps" && f.Name == "Lifecycle" { // one layer, or a list of them, base stack first
			layer := g.schema(lifecycles)
			s = map[string]any{"oneOf": []any{layer, map[string]any{"type": "array", "items": layer}}}
		}
		if t.Name() == "SetPackageContext" && f.Name == "Data" { // Kubernetes' rule for ConfigMap keys
			s["propertyNames"] = map[string]any{"pattern": "^[-._a-zA-Z0-9]+$", "not": map[string]any{"enum": v1alpha1.ReservedContextKeys}}
		}
		if d := g.docs[t.Name()+"."+f.Name]; d != "" {
			s["description"] = d
		}
		props[name] = s
	}
	out := map[string]any{"type": "object", "properties": props}
	if t.Name() != "ObjectMeta" { // Kubernetes' metadata has more than the functions read
		out["additionalProperties"] = false
	}
	if d := g.docs[t.Name()]; d != "" {
		out["description"] = d
	}
	return out
}

// readDocs reads the doc comments of the types and struct fields of the
// Go packages in dirs, by `Type` and `Type.Field`.
func readDocs(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				gd, ok := n.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					return true
				}
				for _, spec := range gd.Specs {
					ts := spec.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil && len(gd.Specs) == 1 {
						doc = gd.Doc
					}
					if doc != nil {
						docs[ts.Name.Name] = oneLine(doc.Text())
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						text := ""
						switch {
						case field.Doc != nil:
							text = field.Doc.Text()
						case field.Comment != nil:
							text = field.Comment.Text()
						}
						for _, name := range field.Names {
							if text != "" {
								docs[ts.Name.Name+"."+name.Name] = oneLine(text)
							}
						}
					}
				}
				return false
			})
		}
	}
	return docs
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
