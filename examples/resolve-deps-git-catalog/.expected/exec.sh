# Makes the git catalog "platform" (Porch's layout: tag <package>/vN), indexes
# it into catalog.yaml with kptkit catalog index, and renders the stack with
# kpt: resolve-deps writes the plan and a PackageVariant per package, with
# the parameters each package declares in its package context.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./make-catalog.sh "$tmp/platform"   # the example's own script, as a user runs it
kptkit catalog index --repo "platform=$tmp/platform" -o catalog.yaml
EDGE_DOMAIN=edge01.example.com DB_PASSWORD=not-in-git \
  kpt fn render --allow-exec --truncate-output=false
