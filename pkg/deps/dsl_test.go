package deps_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/deps/discover"
)

// The tests write catalogs, inventories and requests as lines:
//
//	[repo/]name@version | deps: d ^1.2; e | provides: dns | requires: k8s | apis: g/v Kind, g/v | uses: g Kind; g res:pods | latest
//	name@version | deps: d ^1 | asdep           (inventory; no deps section: the catalog's)
//	[repo/]name range                            (a request: PackageInstall/<name>)
//	api: name group/version Kind                 (a discovered need)
func sections(line string) (string, map[string]string) {
	parts := strings.Split(line, "|")
	out := map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), ":")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return strings.TrimSpace(parts[0]), out
}

func parseDeps(s string) []v1alpha1.Dependency {
	var out []v1alpha1.Dependency
	for _, d := range strings.Split(s, ";") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		name, rng, _ := strings.Cut(d, " ")
		out = append(out, v1alpha1.Dependency{Package: name, Version: strings.TrimSpace(rng)})
	}
	return out
}

func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func catalogOf(t testing.TB, spec string) *deps.Catalog {
	t.Helper()
	pkgs := map[string]*deps.Package{}
	var order []*deps.Package
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		head, sec := sections(line)
		ref, raw, _ := strings.Cut(head, "@")
		repo, name, ok := strings.Cut(ref, "/")
		if !ok {
			repo, name = "catalog", ref
		}
		p := pkgs[repo+"/"+name]
		if p == nil {
			p = &deps.Package{Name: name, Repo: repo}
			pkgs[repo+"/"+name] = p
			order = append(order, p)
		}
		v, err := deps.ParseVersion(raw)
		if err != nil {
			t.Fatal(err)
		}
		ver := &deps.Version{Raw: raw, SemVer: v, Deps: parseDeps(sec["deps"]),
			Provides: list(sec["provides"]), Requires: list(sec["requires"])}
		for _, a := range list(sec["apis"]) {
			gv, kind, _ := strings.Cut(a, " ")
			g, vv, _ := strings.Cut(gv, "/")
			ver.APIs = append(ver.APIs, v1alpha1.API{Group: g, Version: vv, Kind: kind, Resource: deps.Plural(kind)})
		}
		for _, u := range strings.Split(sec["uses"], ";") {
			g, what, ok := strings.Cut(strings.TrimSpace(u), " ")
			if !ok {
				continue
			}
			a := v1alpha1.RequiredAPI{Group: g, Kind: what, Reason: "x.yaml"}
			if res, ok := strings.CutPrefix(what, "res:"); ok {
				a.Kind, a.Resource = "", res
			}
			ver.ReqAPIs = append(ver.ReqAPIs, a)
		}
		if _, latest := sec["latest"]; latest {
			p.Latest = raw
		}
		p.Vers = append(p.Vers, ver)
	}
	for _, p := range order {
		slices.SortStableFunc(p.Vers, func(a, b *deps.Version) int { return b.SemVer.Compare(a.SemVer) }) // highest first
	}
	return deps.NewCatalog(order...)
}

func inventoryOf(t testing.TB, spec string) map[string]*deps.Installed {
	t.Helper()
	out := map[string]*deps.Installed{}
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		head, sec := sections(line)
		name, raw, _ := strings.Cut(head, "@")
		v, err := deps.ParseVersion(raw)
		if err != nil {
			t.Fatal(err)
		}
		_, hasDeps := sec["deps"]
		_, asDep := sec["asdep"]
		out[name] = &deps.Installed{Package: name, Raw: raw, SemVer: v, Deps: parseDeps(sec["deps"]), HasDeps: hasDeps, AsDependency: asDep}
	}
	return out
}

func rootsOf(spec string) []deps.Root {
	var out []deps.Root
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "api:"); ok {
			f := strings.Fields(rest)
			g, v, _ := strings.Cut(f[1], "/")
			api := discover.API{Group: g, Version: v, Kind: f[2]}
			out = append(out, deps.Root{Package: f[0], By: f[2] + "/x", APIs: []discover.API{api}})
			continue
		}
		ref, rng, _ := strings.Cut(line, " ")
		repo, name, ok := strings.Cut(ref, "/")
		if !ok {
			repo, name = "", ref
		}
		out = append(out, deps.Root{Package: name, Repo: repo, Range: strings.TrimSpace(rng), By: "PackageInstall/" + name})
	}
	return out
}

// render writes a plan as lines: each step, then each result.
func render(p *deps.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		line := fmt.Sprintf("%s %s %s", s.Action, s.Package, s.Version)
		if len(s.RequiredBy) > 0 {
			line += " [" + strings.Join(s.RequiredBy, ",") + "]"
		}
		out = append(out, strings.TrimSpace(line)+": "+s.Reason)
	}
	if len(p.UninstallOrder) > 0 {
		out = append(out, "uninstall: "+strings.Join(p.UninstallOrder, ","))
	}
	for _, r := range p.Results {
		if r.Severity != "info" {
			out = append(out, string(r.Severity)+": "+r.Message)
		}
	}
	return out
}
