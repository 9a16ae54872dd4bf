package fleet

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/result"
)

// Outcome is what became of a variant's package.
type Outcome string

const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Failed    Outcome = "failed"
	// Waiting: in git, the variant's revision is proposed, under review.
	Waiting Outcome = "waiting"
)

// Variant is what a run did for one PackageVariant.
type Variant struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Set is the PackageVariantSet whose child it is ("" for a variant given
	// as such).
	Set   string `json:"set,omitempty"`
	Where string `json:"file,omitempty"`
	// Repo and Package name the downstream package.
	Repo    string `json:"repo"`
	Package string `json:"package"`
	// Upstream names the upstream revision (catalog/app@v2) and, for git,
	// its commit.
	Upstream string  `json:"upstream,omitempty"`
	Commit   string  `json:"commit,omitempty"`
	Outcome  Outcome `json:"outcome"`
	// Revision is, in git, the PackageRevision that is the variant's
	// package.
	Revision string `json:"revision,omitempty"`
	// Skipped: nothing it depends on changed, so it was not rendered.
	Skipped bool `json:"skipped,omitempty"`
	// Adopted: the package existed without an owner and was adopted.
	Adopted bool `json:"adopted,omitempty"`
	// Reason and Message explain a failure as its Ready condition does.
	Reason  string      `json:"reason,omitempty"`
	Message string      `json:"message,omitempty"`
	Results result.List `json:"results,omitempty"`
	stalled bool        // failed validation: Porch's Stalled=True
	wrote   string      // in git, the last commit the run made on Revision
}

// Path is the downstream package's folder in the output.
func (v *Variant) Path() string { return v.Repo + "/" + v.Package }

// String summarises the variant for people: its Summary, and a failure's
// message.
func (v *Variant) String() string {
	if v.Outcome == Failed {
		return v.Summary() + ": " + v.Message
	}
	return v.Summary()
}

// Summary says what became of the variant's package, and from where:
// `created edge01/web from catalog/app@v1`, without a failure's message.
func (v *Variant) Summary() string {
	where := v.Path()
	if v.Revision != "" {
		where = v.Revision
	}
	if v.Repo == "" || v.Package == "" {
		where = "(no downstream)"
	}
	s := fmt.Sprintf("%s %s", v.Outcome, where)
	if v.Upstream != "" {
		s += " from " + v.Upstream
	}
	if v.Skipped {
		s += " (up to date)"
	}
	return s
}

// fail marks the variant failed with a reason and message (its Ready
// condition's).
func (v *Variant) fail(reason, format string, args ...any) {
	v.Outcome, v.Reason, v.Message = Failed, reason, fmt.Sprintf(format, args...)
}

// Removal is a package a run removed, or released (its variant is gone and
// its deletion policy is orphan: it stays, without an owner).
type Removal struct {
	Path     string `json:"path"`
	Owner    string `json:"owner"`
	Released bool   `json:"released,omitempty"`
	// Proposed: in git, a published revision proposed for deletion.
	Proposed bool      `json:"proposedForDeletion,omitempty"`
	Error    string    `json:"error,omitempty"`
	repo     objectKey // in git, the Repository it was in
}

// Report is what a run did.
type Report struct {
	Variants []*Variant `json:"variants"`
	Removed  []Removal  `json:"removed,omitempty"`
	// Results are problems not tied to one variant: sets, inputs.
	Results result.List `json:"results,omitempty"`
	// Shard is the run's shard, K/N ("" for the whole fleet).
	Shard string `json:"shard,omitempty"`
	// Status is the PackageVariants' and PackageVariantSets' status, as
	// Porch would report it.
	Status []*yaml.RNode `json:"-"`
}

// Counts tallies a run.
type Counts struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Deleted   int `json:"deleted"`
	Released  int `json:"released"`
	Failed    int `json:"failed"`
	Waiting   int `json:"waiting,omitempty"`
}

// Counts tallies the report; a removal that failed counts as failed.
func (r *Report) Counts() Counts {
	var c Counts
	for _, v := range r.Variants {
		switch v.Outcome {
		case Created:
			c.Created++
		case Updated:
			c.Updated++
		case Unchanged:
			c.Unchanged++
		case Failed:
			c.Failed++
		case Waiting:
			c.Waiting++
		}
	}
	for _, rm := range r.Removed {
		switch {
		case rm.Error != "":
			c.Failed++
		case rm.Released:
			c.Released++
		default:
			c.Deleted++
		}
	}
	return c
}

// Changed reports whether the run changed anything in the output.
func (c Counts) Changed() bool { return c.Created+c.Updated+c.Deleted+c.Released > 0 }

// Failed reports whether anything failed: a variant, a removal, or a
// problem of a set or an input.
func (r *Report) Failed() bool { return r.Counts().Failed > 0 || r.Results.HasError() }
