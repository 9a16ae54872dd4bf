package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// BenchmarkRpkgGet lists the package revisions of 1,000 per-cluster
// deployment repositories (each a copy of gittest's Porch fixture, packed: a
// branch with two packages, two tags, a draft, a proposal, a deletion
// proposal),
// as `kptkit rpkg get` prints its table. The target: ≤ 2 s per run
// (cpu-ms/op: the CPU time, steadier than the wall's on a shared machine).
func BenchmarkRpkgGet(b *testing.B) {
	const n = 1000
	cluster := rpkgBenchFleet(b, n)
	args := []string{"kptkit", "rpkg", "get", "--cluster", cluster}
	b.ResetTimer()
	start := krmtest.ProcessCPU(b)
	defer func() { b.ReportMetric(float64(krmtest.ProcessCPU(b)-start)/float64(b.N)/1e6, "cpu-ms/op") }()
	for b.Loop() {
		var out strings.Builder
		if code := run(args, strings.NewReader(""), &out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
		if lines := strings.Count(out.String(), "\n"); lines != 1+6*n {
			b.Fatalf("%d lines", lines)
		}
	}
}

// rpkgBenchFleet copies the fixture into n repositories and writes a
// cluster file with a Repository for each.
func rpkgBenchFleet(b *testing.B, n int) string {
	b.Helper()
	fixture := gittest.NewPorchRepo(b)
	fixture.Git("gc", "-q") // objects and refs packed, as on a git server
	dir := b.TempDir()
	var cluster strings.Builder
	for i := range n {
		repo := filepath.Join(dir, fmt.Sprintf("edge%04d.git", i))
		if err := os.CopyFS(repo, os.DirFS(fixture.Dir)); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&cluster, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge%04d\nspec:\n  type: git\n  deployment: true\n  git:\n    repo: %s\n    directory: clusters/edge1\n---\n", i, repo)
	}
	file := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(file, []byte(cluster.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}
