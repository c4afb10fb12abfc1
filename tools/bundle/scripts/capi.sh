#!/usr/bin/env bash
# capi.sh OUT [CONTAINERD_BIN_DIR] — Cluster API's core provider for an
# offline `clusterctl init`, built from the tools-only module ../capi (which
# pins sigs.k8s.io/cluster-api and sigs.k8s.io/cluster-api/api), and prints
# OUT as its last line:
#
#   OUT/bin/cluster-api-controller     the core manager (sigs.k8s.io/cluster-api/core)
#   OUT/bin/clusterctl                 sigs.k8s.io/cluster-api/cmd/clusterctl
#   OUT/images/cluster-api-controller.tar
#                                      OCI archive of the manager at /manager, named
#                                      registry.k8s.io/cluster-api/cluster-api-controller:VERSION
#   OUT/repo/cluster-api/VERSION/core-components.yaml, metadata.yaml
#                                      the core provider's files in clusterctl's local
#                                      repository layout (providers[].url = file://…)
#
# Both binaries static (CGO_ENABLED=0), -trimpath, linked -s -w, with the
# -X flags of Cluster API's hack/scripts/release/version.sh: gitVersion,
# gitMajor, gitMinor, gitTreeState=clean, buildDate = the module's release
# time (from the module proxy: reproducible). gitCommit is the module
# version: the proxy gives no commit for it (no Origin). version.sh also
# stamps gitReleaseCommit, which sigs.k8s.io/cluster-api/version does not
# declare (the linker drops it), so it is left out. The manager is built
# with -tags=fieldsv1string as upstream's Dockerfile builds the release
# image; clusterctl without, as its release-binary target builds it.
#
# The image is upstream's Dockerfile on distroless/static:nonroot as far as
# the manager needs it: /manager, entrypoint /manager, user 65532 (with its
# /etc/passwd and /etc/group, /tmp 1777), working directory /; no CA
# certificates (it talks only to its own API server).
#
# core-components.yaml is upstream's release-manifests (`kustomize build
# core/config/default` after the Makefile's set-manifest-image and
# set-manifest-pull-policy seds), made by `kubectl kustomize` from a writable
# copy of the module's core/config: image registry.k8s.io/cluster-api/
# cluster-api-controller:VERSION, imagePullPolicy IfNotPresent (the source
# says Always, which fails with no registry). clusterctl's ${VAR:=default}
# variables are left for clusterctl. kubectl is $CAPI_KUBECTL (default: the
# v1.36.5 bundle's, under $CACHE or /var/cache/eggo).
#
# Skipped when OUT's stamp matches the inputs (the Go version, the module's
# go.mod and go.sum, this script, lib.sh, the OCI writer's sources,
# verify-image.sh and kubectl's version). With CONTAINERD_BIN_DIR the image
# is imported into a throwaway containerd and `/manager --help` run in it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=${1:?usage: capi.sh OUT [CONTAINERD_BIN_DIR]}
bindir=${2:-}
moddir="$BUNDLE_SRC/capi"
kubectl=${CAPI_KUBECTL:-${CACHE:-/var/cache/eggo}/bundle/v1.36.5/amd64/usr/local/bin/kubectl}
[[ -f $moddir/go.mod ]] || die "capi.sh: no module at $moddir/go.mod"

mkdir -p "$(dirname "$out")"
# Two builds at once would trample each other's temporary directory.
exec 9>"$out.lock"
flock -n 9 || { log "capi: another build holds $out.lock; waiting"; flock 9; }
# Under the lock, a leftover temporary or old directory is an interrupted build's.
rm -rf "$out.tmp" "$out.old"

export CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOWORK=off
version=$(cd "$moddir" && go list -m -f '{{.Version}}' sigs.k8s.io/cluster-api)
api_version=$(cd "$moddir" && go list -m -f '{{.Version}}' sigs.k8s.io/cluster-api/api)
[[ $version =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "capi.sh: sigs.k8s.io/cluster-api $version is not vX.Y.Z"
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
[[ $api_version == "$version" ]] || die "capi.sh: $moddir pins sigs.k8s.io/cluster-api $version but its api module at $api_version"
[[ -z ${CAPI_VERSION:-} || $CAPI_VERSION == "$version" ]] ||
  die "capi.sh: CAPI_VERSION=$CAPI_VERSION, but $moddir/go.mod pins sigs.k8s.io/cluster-api $version"
[[ -x $kubectl ]] || die "capi.sh: no kubectl at $kubectl (make bundle, or CAPI_KUBECTL=PATH)"
kubectl_version=$("$kubectl" version --client 2>&1 | tr '\n' ' ' | sed 's/ *$//') || die "capi.sh: $kubectl version --client failed: $kubectl_version"

# The inputs that decide the output: a change to any of them rebuilds.
sources=$(cd "$BUNDLE_SRC" && cat capi/go.mod capi/go.sum scripts/capi.sh scripts/lib.sh scripts/verify-image.sh \
  ociimage/*.go cmd/ociarchive/*.go | sha256sum | cut -c1-16)
key="capi $version $(go env GOVERSION) $sources $kubectl_version"
if fresh "$out" "$key"; then
  log "capi $version: cached at $out"
  echo "$out"
  exit 0
fi

started=$SECONDS
info=$(cd "$moddir" && go list -m -json "sigs.k8s.io/cluster-api@$version")
date=$(sed -n '0,/^\s*"Time": "\(.*\)",\?$/s//\1/p' <<<"$info")
src=$(sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p' <<<"$info")
[[ -n $date ]] || die "capi.sh: no release time for sigs.k8s.io/cluster-api@$version"
[[ -d $src/core/config/default && -f $src/metadata.yaml ]] || die "capi.sh: no module directory for sigs.k8s.io/cluster-api@$version ($src)"
ldflags="-s -w"
for kv in "buildDate=$date" "gitCommit=$version" "gitTreeState=clean" "gitMajor=$major" "gitMinor=$minor" "gitVersion=$version"; do
  ldflags+=" -X sigs.k8s.io/cluster-api/version.$kv"
done

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$tmp/bin" "$tmp/images" "$tmp/repo/cluster-api/$version"
log "capi $version: go build the core manager and clusterctl (cold: minutes; the Go build cache keeps later runs short)"
(cd "$moddir" && go build -trimpath -tags=fieldsv1string -ldflags "$ldflags" -o "$tmp/bin/cluster-api-controller" sigs.k8s.io/cluster-api/core)
(cd "$moddir" && go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/clusterctl" sigs.k8s.io/cluster-api/cmd/clusterctl)
(cd "$BUNDLE_SRC" && GOFLAGS= go build -o "$work/ociarchive" ./cmd/ociarchive)
log "capi $version: go build done in $((SECONDS - started)) s"

# Each binary static, stamped, and running. clusterctl gets a HOME of its
# own (it writes its config directory there) and no version check (GitHub).
for b in cluster-api-controller clusterctl; do
  go version -m "$tmp/bin/$b" | grep -q '^\s*build\s*CGO_ENABLED=0$' || die "capi.sh: $b is not static (CGO_ENABLED=0)"
done
export HOME=$work/home CLUSTERCTL_DISABLE_VERSIONCHECK=true
mkdir -p "$HOME"
got=$("$tmp/bin/clusterctl" version -o short 2>&1) || die "capi.sh: clusterctl version failed: $got"
[[ $got == "$version" ]] || die "capi.sh: clusterctl version -o short says '$got', want '$version'"
got=$("$tmp/bin/clusterctl" version 2>&1) || die "capi.sh: clusterctl version failed: $got"
[[ $got == *"GitVersion:\"$version\""*"GitTreeState:\"clean\""*"BuildDate:\"$date\""* ]] ||
  die "capi.sh: clusterctl version says '$got'"
got=$("$tmp/bin/cluster-api-controller" --help 2>&1) || die "capi.sh: cluster-api-controller --help failed: $(tail -n 5 <<<"$got")"
[[ $got == *--leader-elect* ]] || die "capi.sh: cluster-api-controller --help names no --leader-elect: $(head -n 5 <<<"$got")"

# The image: the manager as upstream's Deployment runs it (command /manager).
name=registry.k8s.io/cluster-api/cluster-api-controller:$version
tree=$work/tree
mkdir -p "$tree/etc" "$tree/tmp" "$tree/home/nonroot"
chmod 1777 "$tree/tmp"
chmod 755 "$tree/home/nonroot"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$tree/etc/passwd"
printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$tree/etc/group"
chmod 644 "$tree/etc/passwd" "$tree/etc/group"
"$work/ociarchive" -name "$name" -entrypoint /manager -user 65532:65532 -workdir / \
  -o "$tmp/images/cluster-api-controller.tar" -tree "$tree" "$tmp/bin/cluster-api-controller=/manager"
log "capi $version: $name written ($(du -h --apparent-size "$tmp/images/cluster-api-controller.tar" | cut -f1))"
# The archive's layout: index.json naming the image, its blobs there.
index=$(tar -xOf "$tmp/images/cluster-api-controller.tar" index.json) || die "capi.sh: the archive has no index.json"
grep -qF "\"org.opencontainers.image.ref.name\":\"$name\"" <<<"${index//[[:space:]]/}" ||
  die "capi.sh: the archive's index.json does not name $name: $index"
tar -tf "$tmp/images/cluster-api-controller.tar" | grep -qx 'oci-layout' || die "capi.sh: the archive has no oci-layout"
if [[ -n $bindir ]]; then
  "$BUNDLE_SRC/scripts/verify-image.sh" "$tmp/images/cluster-api-controller.tar" "$name" "$bindir" --once "--leader-elect" -- /manager --help
fi

# core-components.yaml, as upstream's release-manifests makes it.
config=$work/core/config
mkdir -p "$work/core"
cp -r "$src/core/config" "$config"
chmod -R u+w "$config"
sed -i -e "s@image: .*@image: $name@" "$config/default/manager_image_patch.yaml"
sed -i -e 's@imagePullPolicy: .*@imagePullPolicy: IfNotPresent@' "$config/default/manager_pull_policy.yaml"
repo=$tmp/repo/cluster-api/$version
components=$repo/core-components.yaml
"$kubectl" kustomize "$config/default" >"$components" || die "capi.sh: kubectl kustomize $config/default failed"
cp "$src/metadata.yaml" "$repo/metadata.yaml"
chmod 644 "$components" "$repo/metadata.yaml"

# What clusterctl and eggo's stand-in for cert-manager rely on, read back.
# doc KIND NAME: the document of that kind and name (kustomize writes
# documents separated by ---, kind and metadata.name at the top level).
doc() {
  awk -v kind="$1" -v name="$2" '
    function flush() { if (k == kind && n == name) printf "%s", d; d = ""; k = ""; n = ""; meta = 0 }
    /^---$/ { flush(); next }
    { d = d $0 "\n" }
    /^kind: / { k = $2 }
    /^metadata:/ { meta = 1; next }
    /^[^ ]/ { meta = 0 }
    meta && /^  name: / { n = $2 }
    END { flush() }' "$components"
}
count() { grep -c "$1" "$components" || true; }
want() { # want WHAT TEXT PATTERN...: every fixed PATTERN is in TEXT
  local what=$1 text=$2 p
  shift 2
  [[ -n $text ]] || die "capi.sh: core-components.yaml has no $what"
  for p in "$@"; do grep -qF -- "$p" <<<"$text" || die "capi.sh: core-components.yaml: $what has no '$p'"; done
}
inject="cert-manager.io/inject-ca-from: capi-system/capi-serving-cert"
want "Deployment capi-controller-manager" "$(doc Deployment capi-controller-manager)" \
  "namespace: capi-system" "image: $name" "imagePullPolicy: IfNotPresent" "- /manager" "name: manager" \
  '--diagnostics-address=${CAPI_DIAGNOSTICS_ADDRESS:=:8443}' "secretName: capi-webhook-service-cert" "runAsUser: 65532"
[[ $(count '^ *image: ') == 1 && $(count '^ *imagePullPolicy: ') == 1 ]] ||
  die "capi.sh: core-components.yaml: want one image and one imagePullPolicy, found: $(grep -E '^ *image(PullPolicy)?: ' "$components" | tr '\n' ' ')"
[[ $(count '^kind: Namespace$') == 1 ]] && want "Namespace capi-system" "$(doc Namespace capi-system)" "name: capi-system" ||
  die "capi.sh: core-components.yaml: want one Namespace, capi-system"
crds=$(count '^kind: CustomResourceDefinition$')
want_crds=$(grep -c '^- bases/' "$config/crd/kustomization.yaml")
((crds == want_crds && crds > 0)) || die "capi.sh: core-components.yaml has $crds CRDs, core/config/crd names $want_crds"
want "MutatingWebhookConfiguration capi-mutating-webhook-configuration" \
  "$(doc MutatingWebhookConfiguration capi-mutating-webhook-configuration)" "$inject" "name: capi-webhook-service"
want "ValidatingWebhookConfiguration capi-validating-webhook-configuration" \
  "$(doc ValidatingWebhookConfiguration capi-validating-webhook-configuration)" "$inject" "name: capi-webhook-service"
injected=$(count "^    $inject\$")
((injected == crds + 2)) || die "capi.sh: core-components.yaml: $injected objects carry '$inject', want $((crds + 2)) ($crds CRDs, 2 webhook configurations)"
want "Issuer capi-selfsigned-issuer" "$(doc Issuer capi-selfsigned-issuer)" "namespace: capi-system" "selfSigned: {}"
want "Certificate capi-serving-cert" "$(doc Certificate capi-serving-cert)" "namespace: capi-system" \
  "- capi-webhook-service.capi-system.svc" "- capi-webhook-service.capi-system.svc.cluster.local" \
  "name: capi-selfsigned-issuer" "secretName: capi-webhook-service-cert"
want "Service capi-webhook-service" "$(doc Service capi-webhook-service)" "namespace: capi-system" "targetPort: webhook-server"
# Every ${VAR:=default} of the source is left for clusterctl.
while read -r v; do
  grep -qF -- "$v" "$components" || die "capi.sh: core-components.yaml lost the clusterctl variable $v"
done < <(grep -rhoE '\$\{[A-Z_]+:=[^}]*\}' "$src/core/config" | sort -u)
# clusterctl reads the repository as `clusterctl init` will (no cluster
# needed to render a provider's components).
cat >"$work/clusterctl.yaml" <<EOF
providers:
- name: cluster-api
  type: CoreProvider
  url: "file://$components"
CLUSTERCTL_DISABLE_VERSIONCHECK: "true"
EOF
got=$("$tmp/bin/clusterctl" generate provider --config "$work/clusterctl.yaml" --core "cluster-api:$version" 2>&1) ||
  die "capi.sh: clusterctl generate provider --core cluster-api:$version failed: $(tail -n 10 <<<"$got")"
for p in "image: $name" "--diagnostics-address=:8443" "$inject"; do
  grep -qF -- "$p" <<<"$got" || die "capi.sh: clusterctl generate provider: no '$p' in what it rendered"
done
log "capi $version: core-components.yaml: $crds CRDs, the webhook configurations and $injected inject-ca-from annotations, Issuer and Certificate; clusterctl renders it from the local repository"

for f in bin/cluster-api-controller bin/clusterctl; do record_from "$tmp" "$f" "sigs.k8s.io/cluster-api@$version"; done
record_from "$tmp" images/cluster-api-controller.tar "sigs.k8s.io/cluster-api@$version as $name"
record_from "$tmp" "repo/cluster-api/$version/core-components.yaml" "sigs.k8s.io/cluster-api@$version core/config/default, kubectl kustomize ($kubectl_version)"
record_from "$tmp" "repo/cluster-api/$version/metadata.yaml" "sigs.k8s.io/cluster-api@$version"
end_part "$tmp" "$out" "$key"
log "capi $version: $(cd "$out" && du -h --apparent-size bin/* images/* | awk '{printf "%s %s ", $2, $1}')"
echo "$out"
