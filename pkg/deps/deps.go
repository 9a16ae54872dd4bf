package deps

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/deps/lifecycle"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Function is resolve-deps.
var Function = krmfn.Function{Name: "resolve-deps", Run: Run}

// Budget is the solver's step budget for one resolution.
const Budget = 2_000_000

// config is the functionConfig, read and checked.
type config struct {
	v1alpha1.ResolveDeps
	op     v1alpha1.Operation
	policy *lifecycle.Policy
	given  *krmfn.Config // nil when there was none
}

// Run reads the config, the catalog, the inventory and the package's
// requests, resolves, and writes the plan. The in-cluster CatalogPackages
// and InstalledPackages are inputs: they are kept as they are.
func Run(rl *resourcelist.ResourceList, env krmfn.Env) error {
	cfg, rs := readConfig(rl)
	if result.List(rs).HasError() {
		rl.AddResults(rs...)
		return nil
	}
	ranges := NewRanges()
	cat, r1 := ReadCatalog(rl, ranges)
	installed, r2 := ReadInstalled(rl, cfg.Cluster, ranges)
	installs, r3 := ReadInstalls(rl, ranges)
	sp, r4 := readParameters(rl, cfg)
	rs = slices.Concat(rs, r1, r2, r3, r4)
	if result.List(rs).HasError() {
		rl.AddResults(rs...)
		return nil
	}
	conditions, lockProblems := sp.conditions(env)
	cfg.policy.Params = conditions
	req := Request{Catalog: cat, Installed: installed, Ranges: ranges, Options: Options{
		AllowUpgrades: cfg.AllowUpgrades, Prereleases: cfg.Prereleases, Environment: cfg.Environment,
		Policy: cfg.policy, Budget: Budget, Providers: cfg.Providers,
	}}
	plan, more := cfg.plan(rl, req, installs)
	rs = append(rs, more...)
	if plan != nil {
		rs = append(rs, plan.Results...)
	}
	if plan == nil || result.List(rs).HasError() { // a failed plan, or nothing to do
		rl.AddResults(cfg.pointAt(append(rs, lockProblems...))...)
		return nil
	}
	if rs = append(rs, resolveParameters(plan, sp, installed, env)...); result.List(rs).HasError() {
		rl.AddResults(cfg.pointAt(rs)...)
		return nil
	}
	t := Target{ClusterPrefix: cfg.ClusterPrefix, DownstreamRepo: cfg.DownstreamRepo, Namespace: cfg.Metadata.Namespace}
	rs = append(rs, Write(rl, plan, t, installs)...)
	rl.AddResults(cfg.pointAt(rs)...)
	return nil
}

// plan runs the operation: an upgrade, a delete, or an install of the
// PackageInstalls and of what the items need. With no config and nothing
// asked for, there is nothing to do: no plan.
func (c *config) plan(rl *resourcelist.ResourceList, req Request, installs []Install) (*Plan, []result.Result) {
	switch c.op.Verb {
	case v1alpha1.OperationUpgrade:
		return Upgrade(req, c.op, installs), nil
	case v1alpha1.OperationDelete:
		return Delete(req, c.op, installs), nil
	}
	req.Roots = InstallRoots(installs)
	found, rs := DiscoveredRoots(rl, req.index(), req.chooser(), discover.Options{APIs: *c.Discover.APIs, RBAC: *c.Discover.RBAC})
	req.Roots = append(req.Roots, found...)
	if (c.given == nil && len(req.Roots) == 0) || result.List(rs).HasError() {
		return nil, rs
	}
	return Resolve(req), rs
}

// readConfig reads a ResolveDeps (defaults when there is no config).
func readConfig(rl *resourcelist.ResourceList) (*config, []result.Result) {
	cfg := &config{given: krmfn.ConfigOf(rl)}
	c := cfg.given
	var rs []result.Result
	if c != nil {
		if _, ok, bad := c.Match(v1alpha1.TypeResolveDeps); !ok {
			return cfg, []result.Result{bad}
		}
		rs = c.Decode(&cfg.ResolveDeps, decode.Options{KnownFields: true})
	}
	cfg.Default()
	errs := cfg.Validate()
	layers, _ := cfg.Layers()
	single := cfg.Lifecycle != nil && cfg.Lifecycle.Kind == yaml.MappingNode
	policy, perrs := lifecycle.New(layers, cfg.Parameters, single)
	cfg.policy = policy
	errs = append(errs, perrs...)
	cfg.op, _ = v1alpha1.ParseOperation(cfg.Operation)
	if c == nil {
		return cfg, nil
	}
	for _, e := range errs {
		rs = append(rs, c.Errorf(e.Path, "%s: %s", c, e))
	}
	for _, e := range policy.Tuning {
		if e.Param && e.Pkg == "" {
			rs = append(rs, c.Header.Attach(result.Warningf("%s: lifecycle.requires.optional %q switches every package on parameter %s: narrow it to %s:<package>",
				c, e.String(), e.Req, e.Req)))
		}
	}
	return cfg, rs
}

// problem is a mistake in the functionConfig at a field.
func (c *config) problem(field, msg string) result.Result {
	if c.given == nil {
		return result.Errorf("ResolveDeps: %s: %s", field, msg).WithField(field)
	}
	return c.given.Errorf(field, "%s: %s: %s", c.given, field, msg)
}

// pointAt attaches results that name no item to the functionConfig.
func (c *config) pointAt(rs []result.Result) []result.Result {
	if c.given == nil {
		return rs
	}
	out := make([]result.Result, len(rs))
	for i, r := range rs {
		if r.ResourceRef == nil && r.File == nil && r.Severity == result.SeverityError {
			field := ""
			if r.Field != nil {
				field = r.Field.Path
			}
			r = c.given.Header.Attach(r.WithField(field))
			r.Message = fmt.Sprintf("%s: %s", c.given, r.Message)
		}
		out[i] = r
	}
	return out
}
