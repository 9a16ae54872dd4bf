#!/usr/bin/env bash
# story.sh DIR: the fleet story on per-cluster repositories, in DIR (made
# by make-repos.sh): drafts for four clusters; edge01's reviewed, edited on
# its draft and approved with kptkit rpkg; the catalog's revision 2 arrives
# and edge01's new draft keeps the edit. Run in the example's folder, with
# kptkit on PATH; it writes only in DIR (a copy of variants/, the status,
# the review) and shows the story on stdout, DIR written as DIR.
set -euo pipefail
dir=$1
rm -rf "$dir/variants" "$dir/review" && cp -r variants "$dir/variants"
map=(--repo-map "https://git.example.com/nephio/catalog.git=$dir/catalog.git")
for c in edge01 edge02 edge03 edge04; do
  map+=(--repo-map "https://git.example.com/nephio/$c.git=$dir/$c.git")
done
# step shows a command (DIR for the folder, the --repo-map flags as one)
# and runs it, its stderr on stdout.
step() {
  local shown="$*"
  shown=${shown//"$dir"/DIR}
  shown=${shown%% --repo-map *}
  printf '\n$ %s\n' "$shown"
  "$@" 2>&1 | sed "s#$dir#DIR#g"
}
render() { step kptkit variants render --git --variants "$dir/variants" --cluster cluster --status "$dir/variants.status.yaml" "$@" "${map[@]}"; }
rpkg() { step kptkit rpkg "$@" --cluster cluster "${map[@]}"; }

echo "(every kptkit command below also gets --repo-map <URL>=DIR/<repo>.git for the catalog and each cluster)"
echo
echo "== Drafts for four clusters, as Porch's PackageVariant controller writes them"
render
rpkg get
echo
echo "== edge01's draft reviewed: an edit (log-level debug), proposed, approved"
rpkg pull edge01.web.packagevariant-1 "$dir/review"
sed -i 's/log-level: info/log-level: debug/' "$dir/review/web-config.yaml"
rpkg push edge01.web.packagevariant-1 "$dir/review"
rpkg propose edge01.web.packagevariant-1
rpkg approve edge01.web.packagevariant-1
echo
echo "== The catalog's revision 2 arrives: edge01 gets an upgrade draft from its published"
echo "   revision (its edit kept), the other clusters' drafts are updated in place"
sed -i 's/revision: 1/revision: 2/' "$dir/variants/app.yaml"
render
rpkg get
step git -C "$dir/edge01.git" log --first-parent --format='%h %s' drafts/web/packagevariant-2
step git -C "$dir/edge01.git" show drafts/web/packagevariant-2:web/web-config.yaml
echo
echo "== Again, as a CI gate (--check: exit 1 if a commit or a ref would move)"
render --check
