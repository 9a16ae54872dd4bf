#!/usr/bin/env bash
# make-catalog.sh DIR: makes DIR a bare git repository holding the package
# app at catalog/v1 (tag app/v1) and catalog/v2 (tag app/v2), the layout
# Porch reads: tag <package>/v<N> is revision N. Commits are deterministic.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=catalog GIT_AUTHOR_EMAIL=catalog@example.com GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
export GIT_COMMITTER_NAME=catalog GIT_COMMITTER_EMAIL=catalog@example.com GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
git -C "$work" init -q -b main
for v in v1 v2; do
  rm -rf "$work/app" && cp -r "$here/catalog/$v/app" "$work/app"
  git -C "$work" add -A && git -C "$work" commit -q -m "app $v" && git -C "$work" tag "app/$v"
done
rm -rf "$dir" && git clone -q --bare "$work" "$dir"
