# Replays pkger's stack scenario: each step copies one version of the package
# into live/ (the stack.yaml the step before wrote stays), applies it with
# kpt, and keeps the record, the table and kpt's results under records/.
rm -rf live records
mkdir live records
for step in steps/*/; do
  name=$(basename "$step")
  find live -mindepth 1 ! -name stack.yaml -delete
  cp "$step/Kptfile" "$step/package.yaml" live/
  mkdir "records/$name"
  kpt fn eval live --exec apply-stack --fn-config "$step/apply-stack.yaml" \
    --results-dir "records/$name" --truncate-output=false
  cp live/stack.yaml "records/$name/stack.yaml"
  kptkit stack show --table live > "records/$name/stack.txt"
done
kptkit stack show --json live > records/stack.json
