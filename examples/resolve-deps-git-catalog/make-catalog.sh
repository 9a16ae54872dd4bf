#!/usr/bin/env bash
# make-catalog.sh DIR: writes the git catalog "platform" into DIR: five
# packages, cert-manager in two versions, app in two (main at v2), tagged as
# Porch reads them (<package>/vN). Each package's folder holds its Kptfile,
# its resources and, for those with parameters, a Parameters item. Commits
# are deterministic.
set -euo pipefail
export GIT_AUTHOR_NAME=kptkit GIT_AUTHOR_EMAIL=examples@kptkit.dev GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
export GIT_COMMITTER_NAME=kptkit GIT_COMMITTER_EMAIL=examples@kptkit.dev GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
repo=$1
mkdir -p "$repo"
cd "$repo"
git init -q -b main
put() { mkdir -p "$(dirname "$1")"; cat > "$1"; }
kptfile() { # kptfile NAME [ANNOTATIONS...]
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: %s\n  annotations:\n    config.kubernetes.io/local-config: "true"\n' "$1"
  shift
  for a in "$@"; do printf '    %s\n' "$a"; done
}
commit() { git add -A; git commit -q -m "$1"; shift; for t in "$@"; do git tag "$t"; done; }

kptfile cert-manager 'kptkit.dev/provides: tls' | put cert-manager/Kptfile
put cert-manager/crds.yaml <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: Certificate, plural: certificates}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true}
EOF
kptfile db | put db/Kptfile
put db/statefulset.yaml <<'EOF'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: postgres, image: postgres:16}
EOF
put db/parameters.yaml <<'EOF'
apiVersion: fn.kptkit.dev/v1alpha1
kind: Parameters
metadata:
  name: db
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  parameters:
  - name: db.password
    secret: true
  - name: db.size
    default: 10Gi
EOF
kptfile ingress-nginx 'kptkit.dev/provides: ingress' 'kptkit.dev/requires: kubernetes' | put ingress-nginx/Kptfile
put ingress-nginx/parameters.yaml <<'EOF'
apiVersion: fn.kptkit.dev/v1alpha1
kind: Parameters
metadata:
  name: ingress-nginx
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  parameters:
  - name: ingress.class
    default: nginx
EOF
kptfile dashboard 'kptkit.dev/requires: ingress' | put dashboard/Kptfile
kptfile app 'kptkit.dev/requires: ingress, tls' | put app/Kptfile
put app/certificate.yaml <<'EOF'
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: app-tls
spec:
  secretName: app-tls
  dnsNames: [app.example.com]
EOF
put app/pv-db.yaml <<'EOF'
# app needs a database: the latest db of the platform catalog
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: app-db
spec:
  upstream: {repo: platform, package: db, workspaceName: main}
  downstream: {repo: edge01, package: app-db}
EOF
put app/parameters.yaml <<'EOF'
apiVersion: fn.kptkit.dev/v1alpha1
kind: Parameters
metadata:
  name: app
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  parameters:
  - name: ingress.host
  - name: replicas
EOF
commit "the platform catalog" cert-manager/v1 db/v1 ingress-nginx/v1 dashboard/v1 app/v1

# cert-manager v2 also lists v1beta1 (not served)
echo '  - {name: v1beta1, served: false, storage: false}' >> cert-manager/crds.yaml
commit "cert-manager v2" cert-manager/v2

# app v2 trusts the cluster's CA (cert-manager's output) and logs at a level
cat >> app/parameters.yaml <<'EOF'
  - name: ca.bundle
    value: ${cert-manager:ca.crt}
  - name: log.level
    default: info
EOF
commit "app v2: trusts the cluster's CA, logs at a level" app/v2
