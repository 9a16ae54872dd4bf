package deps

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/result"
)

// Upgrade plans `upgrade <package> [<version>]`: without a version, to the
// package's latest version (Glasskube's update: latestVersion when it is
// allowed, else the highest allowed version). Refused when the package is
// not installed, when the version is lower than the installed one or not in
// the catalog, and when a dependant's range excludes it (each named);
// otherwise the package moves to the version and its new dependencies are
// resolved like any others.
func Upgrade(req Request, op v1alpha1.Operation, installs []Install) *Plan {
	if req.Ranges == nil {
		req.Ranges = NewRanges()
	}
	asked := strings.Join(strings.Fields(strings.Join([]string{op.Verb, op.Package, op.Version}, " ")), " ")
	refuse := func(format string, args ...any) *Plan {
		return &Plan{Results: []result.Result{result.Errorf("%s refused: %s", asked, fmt.Sprintf(format, args...))}}
	}
	inst := req.Installed[op.Package]
	if inst == nil {
		return refuse("%s is not installed (install it with a PackageInstall)", op.Package)
	}
	pkg, why := req.Catalog.Find(op.Package, "")
	if pkg == nil {
		return refuse("%s: %s", op.Package, why)
	}
	version := op.Version
	if version == "" {
		latest := pkg.latestAllowed(req.Prereleases)
		if latest == nil {
			return refuse("%s offers no version it may take (prereleases is %v)", op.Package, req.Prereleases)
		}
		if !latest.SemVer.GreaterThan(inst.SemVer) {
			version = inst.Raw
		} else {
			version = latest.Raw
		}
	}
	v, err := ParseVersion(version)
	if err != nil {
		return refuse("%v", err)
	}
	if v.LessThan(inst.SemVer) {
		return refuse("%s is installed at %s and installed packages are never downgraded", op.Package, inst.Raw)
	}
	target := pkg.Version(v)
	if target == nil && !v.Equal(inst.SemVer) {
		return refuse("%s offers no version %s", op.Package, version)
	}
	allows := func(rng string, v *semver.Version) bool {
		c, _ := req.Ranges.Parse(rng)
		return Allows(c, v, req.Prereleases)
	}
	if excluded := dependants(&req, op.Package, installs, func(rng string) bool { return !allows(rng, v) }); len(excluded) > 0 {
		hint := ""
		if op.Version == "" {
			hint = fitting(&req, pkg, inst, installs, allows)
		}
		return refuse("the ranges its dependants hold exclude %s: %s%s", version, strings.Join(excluded, ", "), hint)
	}
	req.Upgrade = op.Package
	by := "operation " + asked
	if op.Version == "" {
		by += " (latest: " + version + ")"
	}
	req.Roots = []Root{{Package: op.Package, Range: "=" + v.String(), By: by}}
	return Resolve(req)
}

// latestAllowed is the package's latest version: latestVersion when set
// and allowed, else the highest allowed version (prereleases only when
// allowed); nil when there is none.
func (p *Package) latestAllowed(prereleases bool) *Version {
	ok := func(v *Version) bool { return Allows(nil, v.SemVer, prereleases) }
	for _, v := range p.Vers {
		if v.Raw == p.Latest && ok(v) {
			return v
		}
	}
	for _, v := range p.Vers {
		if ok(v) {
			return v
		}
	}
	return nil
}

// fitting names the highest version above the installed one that every
// dependant's range allows, as a hint: `; the highest version they all
// allow is 1.4.0`.
func fitting(req *Request, pkg *Package, inst *Installed, installs []Install, allows func(string, *semver.Version) bool) string {
	for _, cand := range pkg.Vers {
		if !cand.SemVer.GreaterThan(inst.SemVer) || !Allows(nil, cand.SemVer, req.Prereleases) {
			continue
		}
		if len(dependants(req, pkg.Name, installs, func(rng string) bool { return !allows(rng, cand.SemVer) })) == 0 {
			return fmt.Sprintf("; the highest version they all allow is %s (upgrade %s %s)", cand.Raw, pkg.Name, cand.Raw)
		}
	}
	return ""
}

// dependants names, as `X (range)`, the installed packages that hold a
// range on pkg and the PackageInstalls that ask for it, keeping those the
// filter selects.
func dependants(req *Request, pkg string, installs []Install, keep func(rng string) bool) []string {
	var out []string
	for _, name := range sortedKeys(req.Installed) {
		if name == pkg {
			continue
		}
		for _, d := range req.heldDeps(name, "") {
			if d.Package == pkg && keep(d.Version) {
				out = append(out, fmt.Sprintf("%s (%s)", name, rangeText(d.Version)))
			}
		}
	}
	for _, in := range installs {
		if in.Spec.Package == pkg && keep(in.Spec.Version) {
			out = append(out, fmt.Sprintf("%s (%s)", in.Item.Header(), rangeText(in.Spec.Version)))
		}
	}
	return out
}

// Delete plans `delete <package>`: refused while an installed package (or a
// PackageInstall of the package) needs it, each named; otherwise the
// package is deleted, with every package installed only as a dependency
// that nothing left needs.
func Delete(req Request, op v1alpha1.Operation, installs []Install) *Plan {
	inst := req.Installed[op.Package]
	if inst == nil {
		return &Plan{Results: []result.Result{result.Errorf("delete %s refused: %s is not installed", op.Package, op.Package)}}
	}
	if needers := dependants(&req, op.Package, installs, func(string) bool { return true }); len(needers) > 0 {
		return &Plan{Results: []result.Result{result.Errorf("delete %s refused: it is still needed by %s", op.Package, strings.Join(needers, ", "))}}
	}
	gone := orphans(&req, op.Package)
	plan := &Plan{Steps: []v1alpha1.PlanStep{}, UninstallOrder: []string{}}
	order := deleteOrder(&req, gone)
	for _, name := range order {
		s := v1alpha1.PlanStep{Package: name, Version: req.Installed[name].Raw, Action: v1alpha1.ActionDelete, RequiredBy: []string{}}
		for _, other := range order {
			if req.needs(other, name) {
				s.RequiredBy = append(s.RequiredBy, other)
			}
		}
		s.Reason = "deleted on request"
		if name != op.Package {
			s.Reason = fmt.Sprintf("installed only as a dependency of %s, which nothing left needs", strings.Join(s.RequiredBy, ", "))
		}
		plan.Steps = append(plan.Steps, s)
		plan.Results = append(plan.Results, result.Infof("%s: delete %s: %s", name, s.Version, s.Reason))
	}
	for i := len(order) - 1; i >= 0; i-- {
		plan.UninstallOrder = append(plan.UninstallOrder, order[i])
	}
	return plan
}

// orphans returns pkg and every package installed as a dependency that
// only the packages going away need, transitively.
func orphans(req *Request, pkg string) map[string]bool {
	gone := map[string]bool{pkg: true}
	names := sortedKeys(req.Installed)
	for changed := true; changed; {
		changed = false
		for _, name := range names {
			if gone[name] || !req.Installed[name].AsDependency {
				continue
			}
			neededByGone, neededByKept := false, false
			for _, other := range names {
				if other == name || !req.needs(other, name) {
					continue
				}
				if gone[other] {
					neededByGone = true
				} else {
					neededByKept = true
				}
			}
			if neededByGone && !neededByKept {
				gone[name], changed = true, true
			}
		}
	}
	return gone
}

// deleteOrder sorts the packages to delete in install order (what a package
// needs before it, ties by name); uninstalling goes the other way.
func deleteOrder(req *Request, gone map[string]bool) []string {
	var order []string
	names := sortedKeys(gone)
	done := map[string]bool{}
	for len(order) < len(gone) {
		progress := false
		for _, name := range names {
			if done[name] {
				continue
			}
			ready := true
			for _, d := range req.heldDeps(name, "") {
				if gone[d.Package] && !done[d.Package] && d.Package != name {
					ready = false
				}
			}
			if ready {
				order, done[name], progress = append(order, name), true, true
				break
			}
		}
		if !progress { // a cycle among installed packages: break it by name
			for _, name := range names {
				if !done[name] {
					order, done[name] = append(order, name), true
					break
				}
			}
		}
	}
	return order
}
