# Makes the git catalog "platform" (Porch's layout: tag <package>/vN), indexes
# it into catalog.yaml with kptkit catalog index, and renders the stack with
# kpt: resolve-deps writes the plan and a PackageVariant per package, with
# the parameters each package declares in its package context.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=kptkit GIT_AUTHOR_EMAIL=examples@kptkit.dev GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
export GIT_COMMITTER_NAME=kptkit GIT_COMMITTER_EMAIL=examples@kptkit.dev GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
bash "$(dirname "$0")/catalog.sh" "$tmp/platform"
kptkit catalog index --repo "platform=$tmp/platform" -o catalog.yaml
EDGE_DOMAIN=edge01.example.com DB_PASSWORD=not-in-git \
  kpt fn render --allow-exec --truncate-output=false
