# Converts the Jsonnet package to package YAML (kpt does not read .jsonnet
# files), applies it as a stack, prints the record in pkger's JSON form and
# exports the tracked resources as one JSON package file. The outputs go to
# out/, which .krmignore keeps out of the package kpt reads.
kptkit stack convert -o package.yaml package.jsonnet
kpt fn eval --exec apply-stack --fn-config apply-stack.yaml --truncate-output=false
mkdir -p out
kptkit stack show --json > out/stack.json
kptkit stack export -o out/export.json
