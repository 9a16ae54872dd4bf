#!/usr/bin/env bash
# make demo: render example packages with the real kpt and show what changed.
# Runs from the repository root after `make build`; writes only under out/demo.
set -euo pipefail
root=$(pwd)
out="$root/out/demo"
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

# The main job: a fleet of variants rendered locally, as Porch would.
fleet=examples/fan-out-variants-fleet
printf '\n== A fleet: two PackageVariantSets over three WorkloadClusters  (%s)\n' "$fleet"
bin/kptkit variants render --variants $fleet/variants --cluster $fleet/cluster \
  --upstream $fleet/upstream --out "$out/fleet" --render=false | sed 's/^/   /'
printf '\n   what the edge01 variant of argo-cd-app changed in its upstream:\n'
git --no-pager diff --no-index --color=auto "$fleet/upstream/argo-cd-app" "$out/fleet/edge01/argo-cd-edge01" \
  | sed -e "s#a/$fleet/upstream/argo-cd-app/#a/#g" -e "s#b$out/fleet/edge01/argo-cd-edge01/#b/#g" \
        -e "s#b/$out/fleet/edge01/argo-cd-edge01/#b/#g" || true

show "set-package-context in a Kptfile pipeline: kpt fn render --allow-exec" \
  set-package-context-render kpt fn render --allow-exec
show "prepend-pipeline with a Nephio PackageVariant: kpt fn eval --exec" \
  prepend-pipeline-porch-variant kpt fn eval --exec ../../bin/prepend-pipeline --fn-config pv-cluster.yaml

printf '\nRendered packages are in %s. Run `make demo` again to start over.\n' "$out"
