#!/usr/bin/env bash
# kube.sh VERSION OUT — builds Kubernetes VERSION's binaries into OUT/usr/local/bin
# from the test-only module kube/VERSION (see kube/gen-gomod.sh), stamped with
# the real version as Kubernetes' own release build does (hack/lib/version.sh):
# without the -X flags every binary would report v0.0.0-master, and the upgrade
# test needs to tell the two versions apart.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: kube.sh VERSION OUT}
out=${2:?usage: kube.sh VERSION OUT}
[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "kube.sh: $version is not v1.Y.Z"
moddir="$BUNDLE_SRC/kube/$version"
[[ -f $moddir/go.mod ]] || die "kube.sh: no module for $version at $moddir/go.mod (run kube/gen-gomod.sh $version)"

# The inputs that decide the output: a change to any of them rebuilds.
key="kube $version $(go env GOVERSION) $(cat "$moddir/go.mod" "$moddir/go.sum" "$0" "$BUNDLE_SRC/scripts/lib.sh" | sha256sum | cut -c1-16)"
fresh "$out" "$key" && { log "kube $version: cached at $out"; exit 0; }

# The release tag's commit and time make the build reproducible and truthful.
ldflags=$(kube_ldflags "$version" "$moddir")

tmp=$(begin_part "$out")
mkdir -p "$tmp/usr/local/bin"
log "kube $version: go build (cold: ~10 min on 2 cores; the Go build cache keeps later runs short)"
started=$SECONDS
pkgs=()
for b in "${KUBE_BINARIES[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
# One go build for all six shares the work on their common packages.
(cd "$moddir" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" \
  go build -trimpath -ldflags "$ldflags" -o "$tmp/usr/local/bin/" "${pkgs[@]}")
for b in "${KUBE_BINARIES[@]}"; do
  [[ -x $tmp/usr/local/bin/$b ]] || die "kube.sh: go build made no $b for $version"
done
# Every binary must report the release, or an upgrade could not be told apart.
for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy; do
  got=$("$tmp/usr/local/bin/$b" --version 2>&1) || die "kube.sh: $b --version failed: $got"
  [[ $got == "Kubernetes $version" ]] || die "kube.sh: $b --version says '$got', want 'Kubernetes $version'"
done
got=$("$tmp/usr/local/bin/kubectl" version --client 2>&1) || die "kube.sh: kubectl version --client failed: $got"
got=${got%%$'\n'*} # the first line; a pipe into head could kill kubectl with SIGPIPE
[[ $got == "Client Version: $version" ]] || die "kube.sh: kubectl version --client says '$got', want 'Client Version: $version'"
for b in "${KUBE_BINARIES[@]}"; do record_from "$tmp" "usr/local/bin/$b" "k8s.io/kubernetes@$version"; done
log "kube $version: built in $((SECONDS - started)) s; every binary's --version says Kubernetes $version"
end_part "$tmp" "$out" "$key"
