#!/usr/bin/env bash
# make demo: render example packages with the real kpt and show what changed.
# Runs from the repository root after `make build`; writes only under out/demo.
set -euo pipefail
root=$(pwd)
out="$root/out/demo"
printf 'make demo: a fleet of package variants and two example packages, rendered with kptkit and kpt\ninto %s (a few seconds)\n' "$out"
rm -rf "$out" && mkdir -p "$out/examples"
ln -s "$root/bin" "$out/bin"   # exec paths in the examples are ../../bin/<function>

show() { # show <title> <example>: run the example's command and print the change
  local title=$1 ex=$2
  cp -r "examples/$ex" "$out/examples/$ex" && rm -rf "$out/examples/$ex/.expected"
  cp -r "$out/examples/$ex" "$out/examples/$ex.orig"
  printf '\n== %s  (examples/%s)\n' "$title" "$ex"
  (cd "$out/examples/$ex" && shift 2 && "$@" 2>&1 | sed 's/^/   kpt | /')
  (cd "$out/examples" && git --no-pager diff --no-index --color=auto "$ex.orig" "$ex") \
    | sed -e "s#a/$ex.orig/#a/#g" -e "s#b/$ex/#b/#g" || true
}

# The main job: a fleet of variants rendered locally, as Porch would, from a
# git catalog; then the catalog's next revision rolled out over a hand edit.
fleet=examples/fleet
work="$out/fleet"
cp -r "$fleet" "$work" && rm -rf "$work/.expected"
"$fleet/make-catalog.sh" "$out/catalog.git"   # a local clone of the catalog's remote
render() {
  (cd "$work" && ../../../bin/kptkit variants render --variants variants --cluster cluster --out deployments \
    --repo-map "https://git.example.com/nephio/catalog.git=$out/catalog.git" "$@") 2>&1 | sed 's/^/   /'
}
printf '\n== A fleet: a PackageVariantSet over four WorkloadClusters, from a git catalog  (%s)\n' "$fleet"
printf '   kptkit variants render --variants variants --cluster cluster --out deployments --repo-map URL=CLONE\n'
render
printf '\n   what the edge01 variant made of the catalog'"'"'s app (revision 1): package context, injected\n'
printf '   cluster, its own set-namespace step, and the pipeline rendered (set-namespace, then apply-replacements):\n'
git --no-pager diff --no-index --color=auto "$fleet/catalog/v1/app" "$work/deployments/edge01/web" \
  | sed -e "s#a/$fleet/catalog/v1/app/#a/#g" -e "s#b$work/deployments/edge01/web/#b/#g" \
        -e "s#b/$work/deployments/edge01/web/#b/#g" || true
cp -r "$work/deployments" "$out/deployments.v1"
printf '\n== A hand edit in edge01'"'"'s package, then the set moved to revision 2 of the catalog\n'
sed -i 's/log-level: info/log-level: debug/' "$work/deployments/edge01/web/web-config.yaml"
sed -i 's/revision: 1/revision: 2/' "$work/variants/app.yaml"
render
printf '\n   edge01 after the update (kpt pkg update'"'"'s merge: the edit kept, the upstream'"'"'s changes in):\n'
git --no-pager diff --no-index --color=auto "$out/deployments.v1/edge01/web" "$work/deployments/edge01/web" \
  | sed -e "s#a$out/deployments.v1/edge01/web/#a/#g" -e "s#a/$out/deployments.v1/edge01/web/#a/#g" \
        -e "s#b$work/deployments/edge01/web/#b/#g" -e "s#b/$work/deployments/edge01/web/#b/#g" || true
printf '\n== Again, as a CI gate (--check: exit 1 if anything would change)\n'
render --check

# The same fleet as Porch's package revisions in per-cluster git
# repositories: drafts, a review with kptkit rpkg, an approval, an upgrade.
printf '\n== The fleet on per-cluster git repositories: drafts, review, approval, upgrade  (examples/fleet-git)\n'
examples/fleet-git/make-repos.sh "$out/fleet-git"
(cd examples/fleet-git && PATH="$root/bin:$PATH" SOURCE_DATE_EPOCH=1767225600 ./story.sh "$out/fleet-git") | sed 's/^/   /'

show "set-package-context in a Kptfile pipeline: kpt fn render --allow-exec" \
  set-package-context-render kpt fn render --allow-exec
show "prepend-pipeline with a Nephio PackageVariant: kpt fn eval --exec" \
  prepend-pipeline-porch-variant kpt fn eval --exec ../../bin/prepend-pipeline --fn-config pv-cluster.yaml

printf '\nRendered packages are in %s. Run `make demo` again to start over.\n' "$out"
