#!/usr/bin/env bash
# make-repos.sh DIR: makes, in DIR, the catalog's git repository
# (catalog.git: the package app at catalog/v1 and catalog/v2, tags app/v1
# and app/v2, the layout Porch reads) and one bare deployment repository per
# edge cluster (edge01.git … edge04.git, a README on main), to be read and
# written as local clones of the remotes the Repositories name, with
# --repo-map. Commits are deterministic.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=catalog GIT_AUTHOR_EMAIL=catalog@example.com GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
export GIT_COMMITTER_NAME=catalog GIT_COMMITTER_EMAIL=catalog@example.com GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
mkdir -p "$dir"
git -C "$work" init -q -b main catalog
for v in v1 v2; do
  rm -rf "$work/catalog/app" && cp -r "$here/catalog/$v/app" "$work/catalog/app"
  git -C "$work/catalog" add -A && git -C "$work/catalog" commit -q -m "app $v" && git -C "$work/catalog" tag "app/$v"
done
rm -rf "$dir/catalog.git" && git clone -q --bare "$work/catalog" "$dir/catalog.git"
export GIT_AUTHOR_NAME=ops GIT_AUTHOR_EMAIL=ops@example.com GIT_COMMITTER_NAME=ops GIT_COMMITTER_EMAIL=ops@example.com
for c in edge01 edge02 edge03 edge04; do
  git -C "$work" init -q -b main "$c"
  printf 'The deployment repository of %s.\n' "$c" >"$work/$c/README.md"
  git -C "$work/$c" add -A && git -C "$work/$c" commit -q -m "$c"
  rm -rf "$dir/$c.git" && git clone -q --bare "$work/$c" "$dir/$c.git"
done
