#!/usr/bin/env bash
# make-catalog.sh DIR: makes DIR a bare git repository holding catalog/ (a
# slice of the Nephio catalog, in its layout) with the tags Porch reads:
# <folder>/<package>/v1 for every package, as revision 1 of it. Commits are
# deterministic.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=catalog GIT_AUTHOR_EMAIL=catalog@example.com GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
export GIT_COMMITTER_NAME=catalog GIT_COMMITTER_EMAIL=catalog@example.com GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
cp -R "$here/catalog/." "$work"
git -C "$work" init -q -b main
git -C "$work" add -A && git -C "$work" commit -q -m "the catalog"
(cd "$work" && find . -name Kptfile | sed -e 's#^\./##' -e 's#/Kptfile$##' | sort) | while read -r pkg; do
  git -C "$work" tag "$pkg/v1"
done
rm -rf "$dir" && git clone -q --bare "$work" "$dir"
