# The fleet at revision 1 of the catalog, a hand edit in one cluster's
# package, then the set moved to revision 2: every package is updated as
# kpt pkg update would, and the edit survives. The catalog is a git
# repository made from catalog/ (tags app/v1, app/v2) and read through
# --repo-map, as a local clone of the remote the Repository names.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
./make-catalog.sh "$tmp/catalog.git"
map=(--repo-map "https://git.example.com/nephio/catalog.git=$tmp/catalog.git")
kptkit variants render --variants variants --cluster cluster --out deployments "${map[@]}"
sed -i 's/log-level: info/log-level: debug/' deployments/edge01/web/web-config.yaml
sed -i 's/revision: 1/revision: 2/' variants/app.yaml
kptkit variants render --variants variants --cluster cluster --out deployments "${map[@]}"
