# The five steps of docs/catalog.md over the example's slice of the Nephio
# catalog: the catalog repository, its index, what mgmt runs and the plan,
# written into my-stack/ (the diff), then the plan's PackageVariants rendered
# into a copy of deployments/ (kept out of the diff: configsync's CRDs are
# large).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./make-catalog.sh "$tmp/catalog.git"
url=https://github.com/nephio-project/catalog.git
kptkit catalog index -o my-stack/catalog.yaml \
  --repo "catalog-infra-capi=$tmp/catalog.git//infra/capi" \
  --repo "catalog-nephio-core=$tmp/catalog.git//nephio/core" \
  --repo "catalog-nephio-optional=$tmp/catalog.git//nephio/optional"
kptkit catalog installed --repo mgmt=deployments/mgmt -o my-stack/inventory.yaml \
  --catalog "catalog-infra-capi=$url//infra/capi" \
  --catalog "catalog-nephio-core=$url//nephio/core" \
  --catalog "catalog-nephio-optional=$url//nephio/optional"
kpt fn eval my-stack --exec "$BIN/resolve-deps" --fn-config my-stack/resolve-deps.yaml --truncate-output=false
cp -R deployments "$tmp/deployments"
kptkit variants render --variants my-stack/packagevariants --cluster repositories.yaml \
  --out "$tmp/deployments" --repo-map "$url=$tmp/catalog.git"
