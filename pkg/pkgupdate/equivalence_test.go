package pkgupdate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
	"github.com/kptkit/kptkit/pkg/result"
)

// scenario is one upstream package at two versions and a downstream's own
// edits, run through kpt and through Clone and Update.
type scenario struct {
	name string
	v1   kptpkg.Files
	// v2 returns the next version of the upstream from v1.
	v2 func(testing.TB, kptpkg.Files) kptpkg.Files
	// edits returns the downstream after its own changes, from what kpt pkg
	// get wrote.
	edits func(testing.TB, kptpkg.Files) kptpkg.Files
	// conflicts are what Update finds; with some, kpt's output is compared
	// with TakeUpstream's, and KeepLocal must leave the downstream alone.
	conflicts []pkgupdate.Conflict
	// fromClone makes the downstream kpt updates Clone's output rather than
	// kpt pkg get's.
	fromClone bool
	// differences are where kpt's update differs from Update on purpose.
	differences []difference
}

// difference is one way kpt's output differs from kptkit's on purpose: the
// edit of a file that turns kptkit's output into kpt's, and why.
type difference struct {
	why  string
	file string
	kpt  func(testing.TB, string) string
}

// kptQuotes: kpt's merge sets every field of a resource anew, quoting the
// strings a YAML 1.1 reader would misread, also in resources the upstream
// did not change; those keep their bytes here.
func kptQuotes(file, plain string) difference {
	return difference{
		why:  "a resource the upstream did not change keeps its bytes (kpt quotes " + plain + ")",
		file: file,
		kpt:  func(t testing.TB, s string) string { return sub(t, ": "+plain+"\n", `: "`+plain+`"`+"\n")(s) },
	}
}

func scenarios() []scenario {
	return []scenario{
		{name: "edits", v1: upstreamV1(), v2: upstreamV2, edits: downstreamEdits},
		{name: "from-clone", v1: upstreamV1(), v2: upstreamV2, edits: downstreamEdits, fromClone: true},
		{name: "conflicts", v1: upstreamV1(), v2: upstreamV2, edits: conflictingEdits, conflicts: []pkgupdate.Conflict{
			{Ref: kptfileRef, File: "Kptfile", Field: "info.description", Original: "the app", Local: "mine", Upstream: "the app, v2"},
			{Ref: result.ResourceRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cfg"}, File: "cm.yaml", Field: "data.a", Original: "'1'", Local: "'5'", Upstream: "'2'"},
			{Ref: result.ResourceRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "app"}, File: "deploy.yaml", Field: "spec.replicas", Original: "1", Local: "3", Upstream: "2"},
			{Ref: result.ResourceRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "app"}, File: "deploy.yaml", Field: "spec.template.spec.containers[name=app].image", Original: `"nginx:1.0"`, Local: `"nginx:1.5"`, Upstream: `"nginx:2.0"`},
		}},
		{name: "deletions", v1: upstreamV1(), v2: deletionsV2, edits: deletionEdits},
		{name: "subpackages", v1: subpackagesV1(), v2: subpackagesV2, edits: subpackageEdits},
		{name: "kptfile", v1: upstreamV1(), v2: kptfileV2, edits: kptfileEdits, differences: []difference{kptQuotes("cm.yaml", "yes")}},
		{name: "named-functions", v1: namedV1(), v2: namedV2, edits: namedEdits},
		{name: "fleet-kptfile", v1: upstreamV1(), v2: kptfileV2, edits: fleetEdits, differences: []difference{kptQuotes("cm.yaml", "yes")},
			conflicts: []pkgupdate.Conflict{{
				Ref: kptfileRef, File: "Kptfile", Field: "pipeline.mutators",
				Original: "[{image: 'gcr.io/kpt-fn/set-labels:v0.1', configMap: {app: app}}]",
				Local:    "[{image: 'gcr.io/kpt-fn/set-annotations:v0.1.4', configMap: {owner: me}, name: PackageVariant.ns.pv.0}, {image: 'gcr.io/kpt-fn/set-labels:v0.1', configMap: {app: app}}]",
				Upstream: "[{image: 'gcr.io/kpt-fn/set-labels:v0.1', configMap: {app: app, env: prod}}, {image: 'gcr.io/kpt-fn/set-namespace:v0.4', configMap: {namespace: web}}]",
			}}},
		{name: "no-kptfile", v1: noKptfileV1(), v2: noKptfileV2, edits: func(t testing.TB, f kptpkg.Files) kptpkg.Files {
			return edit(t, f, map[string]func(string) string{"a.yaml": sub(t, "k: v", "k: mine")})
		}},
	}
}

var kptfileRef = result.ResourceRef{APIVersion: "kpt.dev/v1", Kind: "Kptfile", Name: "app"}

func TestKptEquivalence(t *testing.T) {
	t.Parallel()
	e := newKptEnv(t)
	list := scenarios()
	type published struct{ o1, o2 pkgupdate.Origin }
	pub := map[string]published{}
	for _, s := range list {
		c := e.publish(s.name, s.v1, s.name+"/v1")
		pub[s.name] = published{o1: e.origin(s.name, s.name+"/v1", c)}
	}
	for _, s := range list {
		p := pub[s.name]
		p.o2 = e.origin(s.name, s.name+"/v2", e.publish(s.name, s.v2(t, s.v1), s.name+"/v2"))
		pub[s.name] = p
	}
	for _, s := range list {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			e := e.forTest(t)
			p := pub[s.name]
			v1, v2 := s.v1, s.v2(t, s.v1)
			ds := e.downstream("ds")
			got := e.get(ds, "app", s.name, s.name+"/v1")
			cloned, err := pkgupdate.Clone(v1, "app", p.o1)
			if err != nil {
				t.Fatal(err)
			}
			sameFiles(t, "kpt pkg get and Clone", got, cloned)
			if s.fromClone {
				got = cloned
			}

			local := s.edits(t, got)
			replace(t, filepath.Join(ds, "app"), local)
			byKpt := e.update(ds, "app", s.name+"/v2")
			policy := pkgupdate.KeepLocal
			if len(s.conflicts) > 0 {
				policy = pkgupdate.TakeUpstream
			}
			updated, conflicts, err := pkgupdate.Update(v1, v2, local, p.o2, policy)
			if err != nil {
				t.Fatal(err)
			}
			asKpt := updated.Clone()
			for _, d := range s.differences {
				t.Logf("on purpose: %s: %s", d.file, d.why)
				asKpt[d.file] = []byte(d.kpt(t, string(updated[d.file])))
			}
			sameFiles(t, "kpt pkg update and Update", byKpt, asKpt)
			if diff := cmp.Diff(s.conflicts, conflicts); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
			if len(s.conflicts) == 0 {
				return
			}
			kept, conflicts, err := pkgupdate.Update(v1, v2, local, p.o2, pkgupdate.KeepLocal)
			if err != nil {
				t.Fatal(err)
			}
			sameFiles(t, "the downstream and Update with conflicts", local, kept)
			if diff := cmp.Diff(s.conflicts, conflicts); diff != "" {
				t.Errorf("conflicts with KeepLocal (-want +got):\n%s", diff)
			}
		})
	}
}

const kptfileV1 = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: the app
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.1
      configMap:
        app: app
`

func upstreamV1() kptpkg.Files {
	return kptpkg.Files{
		"Kptfile": []byte(kptfileV1),
		"deploy.yaml": []byte(`# the app's deployment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  labels:
    app: app
spec:
  replicas: 1 # one for now
  template:
    spec:
      containers:
      - name: app
        image: "nginx:1.0"
        ports:
        - containerPort: 80
`),
		"cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: ns
data:
  a: '1'
  b: yes
---
apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports:
    - port: 80
`),
		"old.yaml":       []byte(configMap("old", "k: v")),
		"README.md":      []byte("# app\n\nhello\n"),
		"docs/guide.txt": []byte("guide v1\n"),
		"sub/Kptfile":    []byte(kptfile("sub")),
		"sub/x.yaml":     []byte(configMap("x", "k: v")),
	}
}

func kptfile(name string) string {
	return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n"
}

func configMap(name, data string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  " + data + "\n"
}

func constant(s string) func(string) string { return func(string) string { return s } }

// upstreamV2 changes every kind of thing upstream.
func upstreamV2(t testing.TB, v1 kptpkg.Files) kptpkg.Files {
	return edit(t, v1, map[string]func(string) string{
		"deploy.yaml": func(s string) string {
			s = sub(t, "replicas: 1 # one for now", "replicas: 2 # two now")(s)
			return sub(t, `"nginx:1.0"`, `"nginx:2.0"`)(s)
		},
		"cm.yaml": func(s string) string {
			return sub(t, "a: '1'", "a: '2'")(s) + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  t: x\n"
		},
		"old.yaml":       nil,
		"README.md":      sub(t, "hello", "hello v2"),
		"docs/guide.txt": nil,
		"NOTES.txt":      constant("notes\n"),
		"sub/x.yaml":     sub(t, "k: v", "k: v2"),
		"Kptfile":        sub(t, "description: the app", "description: the app, v2"),
		"new/Kptfile":    constant(kptfile("new")),
		"new/n.yaml":     constant(configMap("n", "k: v")),
	})
}

// downstreamEdits are a downstream's own changes: a field upstream leaves
// alone, a label, a new resource, a deleted resource, a deleted file.
func downstreamEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"deploy.yaml": sub(t, "    app: app\n", "    app: app\n    team: blue\n"),
		"cm.yaml":     sub(t, "b: yes", `b: "no"`),
		"extra.yaml":  constant(configMap("extra", `z: "1"`)),
		"sub/x.yaml":  nil,
	})
}

// conflictingEdits change fields upstream changes too, differently.
func conflictingEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"deploy.yaml": func(s string) string {
			s = sub(t, "replicas: 1 # one for now", "replicas: 3 # mine")(s)
			s = sub(t, `"nginx:1.0"`, `"nginx:1.5"`)(s)
			return sub(t, "    app: app\n", "    app: app\n    team: blue\n")(s)
		},
		"cm.yaml": sub(t, "a: '1'", "a: '5'"),
		"Kptfile": sub(t, "description: the app", "description: mine"),
	})
}

// deletionsV2 deletes upstream what the downstream changed or deleted.
func deletionsV2(t testing.TB, v1 kptpkg.Files) kptpkg.Files {
	return edit(t, v1, map[string]func(string) string{
		"cm.yaml": func(s string) string {
			before, _, _ := strings.Cut(s, "---\n")
			return sub(t, "a: '1'", "a: '2'")(before)
		},
		"old.yaml":       nil,
		"docs/guide.txt": nil,
	})
}

func deletionEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"cm.yaml": func(s string) string {
			_, after, _ := strings.Cut(s, "---\n")
			return sub(t, "port: 80", "port: 8080")(after)
		},
		"README.md":      nil,
		"docs/guide.txt": sub(t, "v1", "mine"),
	})
}

func subpackagesV1() kptpkg.Files {
	return kptpkg.Files{
		"Kptfile":             []byte(kptfile("app")),
		"a.yaml":              []byte(configMap("a", "k: v")),
		"kept/Kptfile":        []byte(kptfile("kept")),
		"kept/k.yaml":         []byte(configMap("k", "k: v")),
		"gone/Kptfile":        []byte(kptfile("gone")),
		"gone/g.yaml":         []byte(configMap("g", "k: v")),
		"gone/deeper/Kptfile": []byte(kptfile("deeper")),
		"gone/deeper/d.yaml":  []byte(configMap("d", "k: v")),
		"edited/Kptfile":      []byte(kptfile("edited")),
		"edited/e.yaml":       []byte(configMap("e", "k: v")),
		"edited/notes.txt":    []byte("notes\n"),
	}
}

func subpackagesV2(t testing.TB, v1 kptpkg.Files) kptpkg.Files {
	return edit(t, v1, map[string]func(string) string{
		"kept/k.yaml":         sub(t, "k: v", "k: v2"),
		"gone/Kptfile":        nil,
		"gone/g.yaml":         nil,
		"gone/deeper/Kptfile": nil,
		"gone/deeper/d.yaml":  nil,
		"edited/Kptfile":      nil,
		"edited/e.yaml":       nil,
		"edited/notes.txt":    nil,
		"added/Kptfile":       constant(kptfile("added")),
		"added/n.yaml":        constant(configMap("n", "k: v")),
		"added/more/Kptfile":  constant(kptfile("more")),
		"added/more/m.yaml":   constant(configMap("m", "k: v")),
	})
}

func subpackageEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"edited/e.yaml": sub(t, "k: v", "k: mine"),
		"mine/Kptfile":  constant(kptfile("mine")),
		"mine/m.yaml":   constant(configMap("mine", "k: v")),
	})
}

// kptfileV2 changes the Kptfile upstream: a label, a function, a validator.
func kptfileV2(t testing.TB, v1 kptpkg.Files) kptpkg.Files {
	return edit(t, v1, map[string]func(string) string{
		"Kptfile": func(s string) string {
			s = sub(t, "metadata:\n  name: app\n", "metadata:\n  name: app\n  labels:\n    tier: web\n")(s)
			s = sub(t, "        app: app\n", "        app: app\n        env: prod\n")(s)
			return s + "    - image: gcr.io/kpt-fn/set-namespace:v0.4\n      configMap:\n        namespace: web\n" +
				"  validators:\n    - image: gcr.io/kpt-fn/kubeval:v0.3\n"
		},
	})
}

// kptfileEdits change the downstream's Kptfile as kptkit's fleet does: an
// owner annotation, keywords.
func kptfileEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"Kptfile": func(s string) string {
			s = sub(t, "    config.kubernetes.io/local-config: \"true\"\n", "    config.kubernetes.io/local-config: \"true\"\n    kptkit.dev/owner: ns/app\n")(s)
			return sub(t, "  description: the app\n", "  description: the app\n  keywords:\n    - web\n")(s)
		},
	})
}

func namedV1() kptpkg.Files {
	return kptpkg.Files{
		"Kptfile": []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.1
      configMap:
        app: app
      name: labels
    - image: gcr.io/kpt-fn/apply-replacements:v0.1.1
      configPath: replacements.yaml
      name: replacements
`),
		"a.yaml": []byte(configMap("a", "k: v")),
	}
}

func namedV2(t testing.TB, v1 kptpkg.Files) kptpkg.Files {
	return edit(t, v1, map[string]func(string) string{
		"Kptfile": sub(t, "        app: app\n", "        app: app2\n"),
	})
}

// namedEdits prepend a function, as prepend-pipeline does.
func namedEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"Kptfile": sub(t, "  mutators:\n", "  mutators:\n    - image: gcr.io/kpt-fn/set-annotations:v0.1.4\n      configMap:\n        owner: me\n      name: PackageVariant.ns.pv.0\n"),
	})
}

func noKptfileV1() kptpkg.Files {
	return kptpkg.Files{"a.yaml": []byte(configMap("a", "k: v")), "b.yaml": []byte(configMap("b", "k: v"))}
}

func noKptfileV2(t testing.TB, v1 kptpkg.Files) kptpkg.Files {
	return edit(t, v1, map[string]func(string) string{
		"b.yaml": sub(t, "k: v", "k: v2"),
		"c.yaml": constant(configMap("c", "k: v")),
	})
}

// TestKptEquivalenceRemoteSubpackage: an upstream package holding a
// subpackage kpt fetched from another package (upstream and upstreamLock in
// its Kptfile), moved to that package's next version in the upstream's next
// version, with a downstream edit in it.
func TestKptEquivalenceRemoteSubpackage(t *testing.T) {
	t.Parallel()
	e := newKptEnv(t)
	e.publish("lib", kptpkg.Files{"Kptfile": []byte(kptfile("lib")), "l.yaml": []byte(configMap("l", "k: v"))}, "lib/v1")
	e.publish("app", kptpkg.Files{"Kptfile": []byte(kptfile("app")), "a.yaml": []byte(configMap("a", "k: v"))}, "lib-base")
	e.run(filepath.Join(e.repo, "app"), "kpt", "pkg", "get", e.repo+".git/lib@lib/v1", "lib")
	e.commit(e.repo, "app v1")
	e.run(e.repo, "git", "tag", "app/v1")
	v1 := read(t, filepath.Join(e.repo, "app"))
	o1 := e.origin("app", "app/v1", e.head())

	lib := read(t, filepath.Join(e.repo, "lib"))
	e.publish("lib", edit(t, lib, map[string]func(string) string{"l.yaml": sub(t, "k: v", "k: v2")}), "lib/v2")
	e.run(filepath.Join(e.repo, "app"), "kpt", "pkg", "update", "lib@lib/v2")
	write(t, filepath.Join(e.repo, "app"), kptpkg.Files{"a.yaml": []byte(configMap("a", "k: v2"))})
	e.commit(e.repo, "app v2")
	e.run(e.repo, "git", "tag", "app/v2")
	v2 := read(t, filepath.Join(e.repo, "app"))
	o2 := e.origin("app", "app/v2", e.head())

	ds := e.downstream("ds")
	got := e.get(ds, "app", "app", "app/v1")
	cloned, err := pkgupdate.Clone(v1, "app", o1)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "kpt pkg get and Clone", got, cloned)
	local := edit(t, got, map[string]func(string) string{"lib/l.yaml": sub(t, "  name: l\n", "  name: l\n  labels:\n    mine: \"yes\"\n")})
	replace(t, filepath.Join(ds, "app"), local)
	byKpt := e.update(ds, "app", "app/v2")
	updated, conflicts, err := pkgupdate.Update(v1, v2, local, o2, pkgupdate.KeepLocal)
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) > 0 {
		t.Errorf("conflicts: %v", conflicts)
	}
	sameFiles(t, "kpt pkg update and Update", byKpt, updated)
}

// TestKptDifferences shows, with the real kpt, where kptkit's output differs
// from kpt's on purpose.
func TestKptDifferences(t *testing.T) {
	t.Parallel()
	e := newKptEnv(t)
	kf := "# the app\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app # its name\npipeline:\n  mutators:\n" +
		"    - image: gcr.io/kpt-fn/set-labels:v0.1\n      configMap:\n        tier: web\n        app: app\n"
	v1 := kptpkg.Files{
		"Kptfile":     []byte(kf),
		".krmignore":  []byte("values.yaml\n"),
		"values.yaml": []byte("replicas: 1\n"),
		"a.yaml":      []byte(configMap("a", "k: v")),
	}
	c1 := e.publish("diff", v1, "diff/v1")
	v2 := edit(t, v1, map[string]func(string) string{"values.yaml": constant("replicas: 2\n")})
	c2 := e.publish("diff", v2, "diff/v2")
	bad := edit(t, v1, map[string]func(string) string{"bad.yaml": constant("data: [unclosed\n")})
	e.publish("bad", bad, "bad/v1")
	ds := e.downstream("ds")

	t.Run("a Kptfile keeps its comments and key order", func(t *testing.T) {
		got := e.get(ds, "app", "diff", "diff/v1")
		cloned, err := pkgupdate.Clone(v1, "app", e.origin("diff", "diff/v1", c1))
		if err != nil {
			t.Fatal(err)
		}
		lock := "upstream:\n  type: git\n  git:\n    repo: " + e.repo + "\n    directory: /diff\n    ref: diff/v1\n  updateStrategy: resource-merge\n" +
			"upstreamLock:\n  type: git\n  git:\n    repo: " + e.repo + "\n    directory: /diff\n    ref: diff/v1\n    commit: " + c1 + "\n"
		pipeline := "pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-labels:v0.1\n      configMap:\n"
		byKpt := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n" + lock + pipeline + "        app: app\n        tier: web\n"
		byKptkit := "# the app\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app # its name\n" + lock + pipeline + "        tier: web\n        app: app\n"
		if diff := cmp.Diff(byKpt, string(got["Kptfile"])); diff != "" {
			t.Errorf("kpt's Kptfile (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(byKptkit, string(cloned["Kptfile"])); diff != "" {
			t.Errorf("Clone's Kptfile (-want +got):\n%s", diff)
		}
		delete(got, "Kptfile")
		delete(cloned, "Kptfile")
		sameFiles(t, "the other files", got, cloned)
	})

	t.Run("a YAML file .krmignore names is updated as other files are", func(t *testing.T) {
		byKpt := e.update(ds, "app", "diff/v2")
		local := read(t, filepath.Join(ds, "app")) // as kpt wrote it before the update: the same but for values.yaml
		local["values.yaml"] = []byte("replicas: 1\n")
		updated, _, err := pkgupdate.Update(v1, v2, local, e.origin("diff", "diff/v2", c2), pkgupdate.KeepLocal)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(byKpt["values.yaml"]); got != "replicas: 1\n" {
			t.Errorf("kpt updated values.yaml: %q", got)
		}
		if got := string(updated["values.yaml"]); got != "replicas: 2\n" {
			t.Errorf("Update left values.yaml: %q", got)
		}
	})

	t.Run("a YAML file that does not parse is an error", func(t *testing.T) {
		got := e.get(ds, "bad", "bad", "bad/v1")
		if strings.Contains(string(got["a.yaml"]), "kpt-merge") {
			t.Errorf("kpt now adds merge comments beside a broken file:\n%s", got["a.yaml"])
		}
		_, err := pkgupdate.Clone(bad, "bad", e.origin("bad", "bad/v1", c1))
		want := "the upstream package: cannot read bad.yaml: MalformedYAMLError: yaml: line 1: did not find expected ',' or ']'"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	})
}

// fleetEdits change the downstream's Kptfile as kptkit's fleet (and Porch)
// do: an owner annotation, a readiness gate and its condition, a
// PackageVariant's function before the upstream's (unnamed) ones: a
// conflict when the upstream changes its functions too.
func fleetEdits(t testing.TB, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"Kptfile": func(s string) string {
			s = sub(t, "    config.kubernetes.io/local-config: \"true\"\n", "    config.kubernetes.io/local-config: \"true\"\n    kptkit.dev/owner: ns/pv\n")(s)
			s = sub(t, "  description: the app\n", "  description: the app\n  readinessGates:\n    - conditionType: config.injection.Cluster.cluster\n")(s)
			s = string(namedEdits(t, kptpkg.Files{"Kptfile": []byte(s)})["Kptfile"])
			return s + "status:\n  conditions:\n    - type: config.injection.Cluster.cluster\n      status: \"True\"\n      reason: ConfigInjected\n"
		},
	})
}
