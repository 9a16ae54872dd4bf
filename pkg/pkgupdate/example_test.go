package pkgupdate_test

import (
	"fmt"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

func Example() {
	v1 := kptpkg.Files{
		"Kptfile":     []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"),
		"deploy.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n  paused: false\n"),
	}
	v2 := v1.Clone()
	v2["deploy.yaml"] = []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 2\n  paused: true\n")

	at := func(ref, commit string) pkgupdate.Origin {
		return pkgupdate.Origin{Repo: "https://example.com/blueprints.git", Directory: "app", Ref: ref, Commit: commit}
	}
	downstream, err := pkgupdate.Clone(v1, "app-prod", at("app/v1", "a1b2c3"))
	if err != nil {
		panic(err)
	}
	fmt.Print(string(downstream["deploy.yaml"]))

	// The downstream scales to 3; the upstream moves to 2 and unpauses.
	downstream["deploy.yaml"] = []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: # kpt-merge: /app\n  name: app\n  annotations:\n" +
		"    internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|app'\nspec:\n  replicas: 3\n  paused: false\n")
	_, conflicts, err := pkgupdate.Update(v1, v2, downstream, at("app/v2", "d4e5f6"), pkgupdate.KeepLocal)
	if err != nil {
		panic(err)
	}
	for _, c := range conflicts {
		fmt.Println(c.Error())
	}
	merged, _, err := pkgupdate.Update(v1, v2, downstream, at("app/v2", "d4e5f6"), pkgupdate.TakeUpstream)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(merged["deploy.yaml"]))
	// Output:
	// apiVersion: apps/v1
	// kind: Deployment
	// metadata: # kpt-merge: /app
	//   name: app
	//   annotations:
	//     internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|app'
	// spec:
	//   replicas: 1
	//   paused: false
	// Deployment/app in deploy.yaml: spec.replicas was changed both here (3) and upstream (2), from 1
	// apiVersion: apps/v1
	// kind: Deployment
	// metadata: # kpt-merge: /app
	//   name: app
	//   annotations:
	//     internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|app'
	// spec:
	//   replicas: 2
	//   paused: true
}
