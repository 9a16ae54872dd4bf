package emit_test

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
)

func ExampleBlockStyle() {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(`{"name": "web", "enabled": "yes", "port": "8080", "ports": [80, 443], "note": "a\nb"}`), &doc); err != nil {
		panic(err)
	}
	emit.BlockStyle(&doc)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// name: web
	// enabled: "yes"
	// port: "8080"
	// ports:
	// - 80
	// - 443
	// note: "a\nb"
}
