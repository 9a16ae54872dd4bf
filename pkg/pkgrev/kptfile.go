package pkgrev

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
)

// KptfileInfo is what Porch reads of a revision's Kptfile: its labels and
// annotations (spec.packageMetadata), readiness gates and conditions, and
// its upstream lock.
type KptfileInfo struct {
	Metadata     meta.ObjectMeta       `yaml:"metadata,omitempty"`
	Upstream     *kptfile.Upstream     `yaml:"upstream,omitempty"`
	UpstreamLock *kptfile.UpstreamLock `yaml:"upstreamLock,omitempty"`
	Info         struct {
		ReadinessGates []porch.ReadinessGate `yaml:"readinessGates,omitempty"`
	} `yaml:"info,omitempty"`
	Status struct {
		Conditions []porch.Condition `yaml:"conditions,omitempty"`
	} `yaml:"status,omitempty"`
}

// ReadKptfile reads a Kptfile's bytes. A Kptfile that does not parse gives
// the zero value and the error (Porch then sees no gates and no
// conditions); a field of the wrong type is left out, with the error.
func ReadKptfile(b []byte) (KptfileInfo, error) {
	var k KptfileInfo
	n, err := yaml.Parse(string(b))
	if err != nil {
		return KptfileInfo{}, fmt.Errorf("cannot read the Kptfile: %w", err)
	}
	if errs := decode.Into(n.YNode(), &k, decode.Options{}, ""); len(errs) > 0 {
		return k, fmt.Errorf("cannot read the Kptfile: %w", errs[0])
	}
	return k, nil
}

// Ready reports whether every readiness gate has its condition, with status
// True (Porch's PackageRevisionIsReady): porchctl proposes and approves only
// ready revisions.
func (k KptfileInfo) Ready() bool {
	status := map[string]string{}
	for _, c := range k.Status.Conditions {
		status[c.Type] = c.Status
	}
	for _, g := range k.Info.ReadinessGates {
		if status[g.ConditionType] != "True" {
			return false
		}
	}
	return true
}

// errNotReady is porchctl's refusal to propose or approve a revision whose
// readiness gates are not met.
const errNotReady = "readiness conditions not met"
