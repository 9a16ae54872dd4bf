# Applies the package with kpt (ApplyStack gives bucket-name a value and
# names the secret provided), then asks kptkit what applying it with
# another value would change and for pkger's summary. The outputs go to
# out/, which .krmignore keeps out of the package kpt reads.
kpt fn eval --exec apply-stack --fn-config apply-stack.yaml --truncate-output=false
mkdir -p out
kptkit stack diff --env bucket-name=metrics-v2 --secret on-call-token > out/diff.patch
kptkit stack diff --json --env bucket-name=metrics-v2 --secret on-call-token > out/diff.json
kptkit stack show --summary --json --env bucket-name=metrics-prod --secret on-call-token > out/summary.json
