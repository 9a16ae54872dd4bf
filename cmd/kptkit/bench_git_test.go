package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/gittest"
)

// BenchmarkFleetGit renders 1,000 PackageVariants (a catalog package from
// git, a package context each) as drafts into 1,000 per-cluster deployment
// repositories (variants render --git), beside folder mode's render of the
// same variants into an empty --out in the same iteration; then a --git
// re-run that changes nothing (it must move no ref and start no git
// process), and `rpkg get` over the 1,000 repositories. Metrics: each phase's milliseconds and git/folder, the
// ratio the issue bounds (≤ 1.5), the re-run (≤ 3 s) and get (≤ 2 s); and
// the CPU time of the two renders (kptkit's and its git processes'), steadier
// than the wall's on a shared machine.
func BenchmarkFleetGit(b *testing.B) {
	const n = 1000
	catalog := gittest.NewPlumb(b)
	v1 := catalog.Commit(map[string]string{
		"app/Kptfile": gitAppKptfile,
		"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n",
		"app/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n  template:\n" +
			"    spec:\n      containers:\n      - name: app\n        image: example.com/app:1.0\n",
	}, "catalog v1", "Platform", "platform@example.com")
	catalog.Ref("refs/heads/main", v1)
	catalog.Ref("refs/tags/app/v1", v1)
	template := gittest.NewPlumb(b)
	template.Ref("refs/heads/main", template.Commit(map[string]string{"README.md": "a cluster\n"}, "cluster", "Ops", "ops@example.com"))
	var totals struct {
		folder, git, rerun, get, folderCPU, gitCPU time.Duration
		procs                                      int64
	}
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		variants, cluster := benchGitFleet(b, dir, n, catalog.Dir, template.Dir)
		b.StartTimer()
		start, cpu := time.Now(), cpuAll(b)
		benchRun(b, "variants", "render", "--variants", variants, "--cluster", cluster, "--out", filepath.Join(dir, "out"))
		totals.folder += time.Since(start)
		totals.folderCPU += cpuAll(b) - cpu
		status := filepath.Join(dir, "status.yaml")
		start, cpu, procs := time.Now(), cpuAll(b), gitrepo.GitProcesses()
		benchRun(b, "variants", "render", "--git", "--variants", variants, "--cluster", cluster, "--status", status)
		totals.git += time.Since(start)
		totals.procs += gitrepo.GitProcesses() - procs
		totals.gitCPU += cpuAll(b) - cpu
		refs := template.Git("-C", filepath.Join(dir, "edge0999.git"), "for-each-ref")
		start, procs = time.Now(), gitrepo.GitProcesses()
		benchRun(b, "variants", "render", "--git", "--variants", variants, "--cluster", cluster, "--status", status)
		totals.rerun += time.Since(start)
		if n := gitrepo.GitProcesses() - procs; n != 0 {
			b.Fatalf("the re-run started %d git processes", n)
		}
		if got := template.Git("-C", filepath.Join(dir, "edge0999.git"), "for-each-ref"); got != refs {
			b.Fatalf("the re-run moved refs:\n%s", got)
		}
		start = time.Now()
		benchRun(b, "rpkg", "get", "--cluster", cluster)
		totals.get += time.Since(start)
	}
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(ms(totals.folder), "folder-ms/op")
	b.ReportMetric(ms(totals.git), "git-ms/op")
	b.ReportMetric(float64(totals.git)/float64(totals.folder), "git/folder")
	b.ReportMetric(ms(totals.folderCPU), "folder-cpu-ms/op")
	b.ReportMetric(ms(totals.gitCPU), "git-cpu-ms/op")
	b.ReportMetric(float64(totals.procs)/float64(b.N), "git-processes/op")
	b.ReportMetric(ms(totals.rerun), "rerun-ms/op")
	b.ReportMetric(ms(totals.get), "get-ms/op")
}

// benchGitFleet writes n PackageVariants and a cluster (the catalog and n
// deployment Repositories, each a copy of template) into dir.
func benchGitFleet(b *testing.B, dir string, n int, catalog, template string) (variants, cluster string) {
	b.Helper()
	var vs, cs strings.Builder
	fmt.Fprintf(&cs, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: catalog\nspec:\n  type: git\n  git:\n    repo: %s\n---\n", catalog)
	for i := range n {
		name := fmt.Sprintf("edge%04d", i)
		repo := filepath.Join(dir, name+".git")
		if err := os.CopyFS(repo, os.DirFS(template)); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&cs, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: %s\nspec:\n  type: git\n  deployment: true\n  git:\n    repo: %s\n---\n", name, repo)
		fmt.Fprintf(&vs, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: %s-app\nspec:\n"+
			"  upstream: {repo: catalog, package: app, revision: v1}\n  downstream: {repo: %s, package: app}\n  packageContext:\n    data: {cluster: %s}\n---\n", name, name, name)
	}
	variants, cluster = filepath.Join(dir, "variants.yaml"), filepath.Join(dir, "cluster.yaml")
	for f, s := range map[string]string{variants: vs.String(), cluster: cs.String()} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return variants, cluster
}

// cpuAll is the CPU time of the process and its ended children (git).
func cpuAll(b *testing.B) time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		b.Fatal("cannot read the CPU time")
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}

// benchRun runs kptkit in process; a failure fails the benchmark.
func benchRun(b *testing.B, args ...string) {
	b.Helper()
	var errb strings.Builder
	if code := run(append([]string{"kptkit"}, args...), strings.NewReader(""), io.Discard, &errb); code != 0 {
		b.Fatalf("kptkit %s: exit %d: %s", strings.Join(args[:2], " "), code, errb.String())
	}
}
