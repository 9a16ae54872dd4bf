package fleet_test

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgdir"
	"github.com/kptkit/kptkit/pkg/result"
)

const example = "../../examples/fan-out-variants-fleet"

func readFiles(t *testing.T, dir string) pkgdir.Files {
	t.Helper()
	files := pkgdir.Files{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readObjects(t *testing.T, dir string) []*yaml.RNode {
	t.Helper()
	var out []*yaml.RNode
	files := readFiles(t, dir)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		ns, err := (&kio.ByteReader{Reader: bytes.NewReader(files[name]), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ns...)
	}
	return out
}

func input(t *testing.T) fleet.Input {
	return fleet.Input{
		Variants: readObjects(t, filepath.Join(example, "variants")),
		Cluster:  readObjects(t, filepath.Join(example, "cluster")),
		Upstreams: map[string]pkgdir.Files{
			"argo-cd-app":  readFiles(t, filepath.Join(example, "upstream", "argo-cd-app")),
			"ric-operator": readFiles(t, filepath.Join(example, "upstream", "ric-operator")),
		},
		Env: krmtest.Env(krmtest.Clock, nil),
	}
}

func TestRenderFleet(t *testing.T) {
	t.Parallel()
	in := input(t)
	variants, rs := fleet.Render(in)
	if rs.HasError() {
		t.Fatalf("set errors: %v", rs)
	}
	var got []string
	for _, v := range variants {
		if v.Results.HasError() {
			t.Errorf("%s: %v", v.Name, v.Results)
		}
		got = append(got, v.Repo+"/"+v.Package+" <- "+v.Upstream)
	}
	want := []string{
		"edge01/argo-cd-edge01 <- argo-cd-app", "edge02/argo-cd-edge02 <- argo-cd-app",
		"core01/ric-operator <- ric-operator", "edge01/ric-operator <- ric-operator", "edge02/ric-operator <- ric-operator",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("variants mismatch (-want +got):\n%s", diff)
	}
	edge01 := variants[0].Files
	up := in.Upstreams["argo-cd-app"]
	if diff := cmp.Diff(string(up["workload-cluster.yaml"]), string(edge01["workload-cluster.yaml"])); diff == "" {
		t.Error("the WorkloadCluster injection point was not filled")
	}
	for file, want := range map[string][]string{
		"package-context.yaml":  {"name: argo-cd-edge01", "region: us-east1", "cluster-name: edge01", "managed-by: kptkit"},
		"workload-cluster.yaml": {"kpt.dev/injected-resource: edge01", "clusterName: edge01", "masterInterface: eth1"},
		"Kptfile":               {"name: PackageVariant.argo-cd-app-edge01-argo-cd-edge01.set-site-type.0", "reason: ConfigInjected"},
	} {
		for _, w := range want {
			if !strings.Contains(string(edge01[file]), w) {
				t.Errorf("%s of edge01/argo-cd-edge01 does not contain %q:\n%s", file, w, edge01[file])
			}
		}
	}
	// Files the variant does not touch keep their bytes.
	for _, f := range []string{"argo-wc-app.yaml", "create-argocd-kubeconfig-secret-job.yaml", "README.md"} {
		if !bytes.Equal(up[f], edge01[f]) {
			t.Errorf("%s changed:\n%s", f, cmp.Diff(string(up[f]), string(edge01[f])))
		}
	}
}

func TestRenderProblems(t *testing.T) {
	t.Parallel()
	in := input(t)
	delete(in.Upstreams, "ric-operator")
	bad, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-variant\n")
	if err != nil {
		t.Fatal(err)
	}
	in.Variants = append(in.Variants, bad)
	variants, rs := fleet.Render(in)
	if !rs.HasError() || !strings.Contains(rs[0].Message, "ConfigMap/not-a-variant is neither a PackageVariantSet") {
		t.Errorf("set results = %v", rs)
	}
	var missing []string
	for _, v := range variants {
		if v.Upstream == "ric-operator" {
			if v.Files != nil || !v.Results.HasError() {
				t.Errorf("%s rendered without its upstream", v.Name)
			}
			missing = append(missing, first(v.Results))
		}
	}
	if len(missing) != 3 || !strings.Contains(missing[0], `upstream package "ric-operator" not found among [argo-cd-app]`) {
		t.Errorf("missing-upstream results = %v", missing)
	}
}

func first(rs result.List) string {
	if len(rs) == 0 {
		return ""
	}
	return rs[0].Message
}
