# Fill the injection points of the package gke-europe-west1 as Porch would
# for pv.yaml, from the management cluster's objects in cluster/ (outside the
# package, so that a run never writes them into it):
#   kpt fn source the package, and the sources (items only), as one list,
#   | kpt fn eval - the function, with the PackageVariant as functionConfig,
#   | kpt fn sink into a new folder, copied back over the package.
# The function removes the sources from its output, so only package files
# come back. Run from the example's folder: bash .expected/exec.sh
pkg=gke-europe-west1
fn=${BIN:-$PWD/../../bin}/inject-config
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{ kpt fn source "$pkg"; kpt fn source cluster | sed '1,/^items:/d'; } |
  kpt fn eval - --exec "$fn" --fn-config pv.yaml |
  kpt fn sink "$out/$pkg"
cp -R "$out/$pkg/." "$pkg/"
