package pkgrev

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Details is what a PackageRevision object shows beyond its refs: its
// Kptfile, its tasks, and who published it when (nil for no one).
type Details struct {
	Kptfile   KptfileInfo
	Tasks     []porch.Task
	Published *Signature
}

// Object returns the PackageRevision Porch serves for a revision
// (gitPackageRevision.GetPackageRevision and the cache's labels): its spec
// (package, repository, workspace, revision, lifecycle, tasks, readiness
// gates, the Kptfile's labels and annotations) and status (the upstream's
// lock and its own, the publisher, deployment, conditions).
func Object(repo Repository, rev *Revision, d Details) porch.PackageRevision {
	o := porch.PackageRevision{
		Kind: porch.KindRevision, APIVersion: porch.V1alpha1,
		Metadata: porch.RevisionMeta{Name: rev.Name, Namespace: repo.Namespace, UID: UID(repo.Namespace, rev.Name), ResourceVersion: rev.Commit},
		Spec: porch.PackageRevisionSpec{
			PackageName: rev.Package, RepositoryName: repo.Name, WorkspaceName: rev.Workspace,
			Revision: rev.Revision, Lifecycle: rev.Lifecycle, Tasks: d.Tasks, ReadinessGates: d.Kptfile.Info.ReadinessGates,
			PackageMetadata: &porch.PackageMetadata{Labels: d.Kptfile.Metadata.Labels, Annotations: d.Kptfile.Metadata.Annotations},
		},
		Status: porch.PackageRevisionStatus{
			UpstreamLock: upstreamLock(d.Kptfile),
			SelfLock: &porch.Locator{Type: kptfile.OriginGit, Git: &porch.GitLock{
				Repo: repo.URL, Directory: rev.Package, Ref: ShortRef(rev.Ref), Commit: rev.Commit,
			}},
			Deployment: repo.Deployment,
			Conditions: d.Kptfile.Status.Conditions,
		},
	}
	if rev.Latest {
		o.Metadata.Labels = map[string]string{porch.LabelLatestRevision: "true"}
	}
	if IsPublished(rev.Lifecycle) && d.Published != nil {
		o.Status.PublishedBy = d.Published.Email
		o.Status.PublishedAt = porch.Time{Time: d.Published.When}
	}
	return o
}

// upstreamLock is the Kptfile's upstreamLock when it has an upstream too
// (an empty locator otherwise), as Porch reports it.
func upstreamLock(k KptfileInfo) *porch.Locator {
	l := &porch.Locator{}
	if k.Upstream == nil || k.Upstream.Git == nil || k.UpstreamLock == nil {
		return l
	}
	l.Type = k.UpstreamLock.Type
	if g := k.UpstreamLock.Git; g != nil {
		l.Git = &porch.GitLock{Repo: g.Repo, Directory: g.Directory, Ref: g.Ref, Commit: g.Commit}
	}
	return l
}

// Tasks returns a revision's tasks read from its history as Porch reads
// them (loadTasks): walking back from its commit, the commits annotated for
// its package and workspace; the oldest task that starts a revision (init,
// edit, clone, upgrade) found before and at the first clone or init.
func Tasks(objs Objects, rev *Revision) ([]porch.Task, error) {
	var task *porch.Task
	err := objs.Log(rev.Commit, func(c Commit) bool {
		annotations, _ := ReadAnnotations(c.Message)
		for _, a := range annotations {
			matches := a.WorkspaceName == rev.Workspace || a.WorkspaceName == "" && a.Revision == rev.Workspace
			if a.Package != rev.Path || !matches || a.Task == nil {
				continue
			}
			if porch.IsFirstTask(a.Task.Type) {
				task = a.Task
			}
			if a.Task.Type == porch.TaskClone || a.Task.Type == porch.TaskInit {
				return false
			}
		}
		return true
	})
	if err != nil || task == nil {
		return nil, err
	}
	return []porch.Task{*task}, nil
}

// PublishedBy returns who published a revision and when: the author of its
// commit, or, for the branch's head, of the newest commit annotated for its
// package (nil when there is none).
func PublishedBy(objs Objects, s *Snapshot, rev *Revision) (*Signature, error) {
	if ParseRef(rev.Ref, s.Repo.Branch).Kind != RefBranch {
		c, err := objs.Commit(rev.Commit)
		if err != nil {
			return nil, err
		}
		return &c.Author, nil
	}
	var found *Signature
	err := objs.Log(rev.Commit, func(c Commit) bool {
		annotations, _ := ReadAnnotations(c.Message)
		for _, a := range annotations {
			if a.Package == rev.Path {
				found = &c.Author
				return false
			}
		}
		return true
	})
	return found, err
}

// ReferencedBy returns the name of a revision whose clone or upgrade task
// names the revision as its upstream (the first by name; "" for none),
// leaving out branch heads, as Porch checks before deleting
// (FindAllUpstreamReferencesInRepositories). tasks are the revisions' tasks
// by name.
func ReferencedBy(name string, tasks map[string][]porch.Task) string {
	return Referrers(tasks)[name]
}

// Referrers returns, for each revision another's clone or upgrade task
// names as its upstream, the first by name of those naming it (a task
// naming its own revision does not count).
func Referrers(tasks map[string][]porch.Task) map[string]string {
	out := map[string]string{}
	for n, ts := range tasks {
		for _, t := range ts {
			if up := upstreamOf(t); up != "" && up != n {
				if by, ok := out[up]; !ok || n < by {
					out[up] = n
				}
			}
		}
	}
	return out
}

// upstreamOf is the revision a clone or upgrade task names as its
// upstream ("" for none).
func upstreamOf(t porch.Task) string {
	switch {
	case t.Type == porch.TaskClone && t.Clone != nil && t.Clone.Upstream.UpstreamRef != nil:
		return t.Clone.Upstream.UpstreamRef.Name
	case t.Type == porch.TaskUpgrade && t.Upgrade != nil:
		return t.Upgrade.NewUpstream.Name
	}
	return ""
}

// Porch's file of a pulled revision's metadata (kpt's
// RevisionMetaDataFileName): porchctl rpkg pull writes it, push reads the
// resourceVersion from it and leaves it out.
const (
	MetadataFile = ".KptRevisionMetadata"
	metadataKind = "KptRevisionMetadata"
)

// Pulled returns the files `rpkg pull` writes: the package's files and
// .KptRevisionMetadata.
func Pulled(repo Repository, rev *Revision, files kptpkg.Files) kptpkg.Files {
	out := files.Clone()
	out[MetadataFile] = fmt.Appendf(nil, "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: %s\n  uid: %s\n  resourceVersion: %s\n",
		porch.V1alpha1, metadataKind, rev.Name, repo.Namespace, UID(repo.Namespace, rev.Name), rev.Commit)
	return out
}

// ResourceVersion reads the resourceVersion a pulled package was pulled at
// from its .KptRevisionMetadata, and returns the files without it; a
// package without one is an error saying to pull it first.
func ResourceVersion(files kptpkg.Files) (string, kptpkg.Files, error) {
	b, ok := files[MetadataFile]
	if !ok {
		return "", nil, fmt.Errorf("%q not found in the package\nuse \"kptkit rpkg pull\" to download the remote package metadata before pushing", MetadataFile)
	}
	var m struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			ResourceVersion string `yaml:"resourceVersion"`
		} `yaml:"metadata"`
	}
	if err := yaml.Unmarshal(b, &m); err != nil || m.Kind != metadataKind {
		return "", nil, fmt.Errorf("%q does not contain kind %q", MetadataFile, metadataKind)
	}
	rest := files.Clone()
	delete(rest, MetadataFile)
	return strings.TrimSpace(m.Metadata.ResourceVersion), rest, nil
}
