#!/usr/bin/env bash
# etcd-image.sh VERSION OUT [CONTAINERD_BIN_DIR] — the etcd image for
# static-pod etcd (etcd_implementation = "pod"):
# OUT/var/lib/eggo/etcd-image/etcd.tar, one layer holding etcd built from
# etcd's Go modules (the test-only module ../etcd/VERSION: upstream's
# etcdmain, the release VERSION its go.mod pins, static) at
# /usr/local/bin/etcd, named registry.k8s.io/etcd:VERSION-0 (without the v)
# as kubeadm names upstream's; the etcd-image column of ../minors.tsv names
# VERSION. The etcd members' static pods run it; nothing is pulled. With
# CONTAINERD_BIN_DIR the archive is imported into a throwaway containerd and
# run once with --version.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
want=${1:?usage: etcd-image.sh VERSION OUT [CONTAINERD_BIN_DIR]}
out=${2:?usage: etcd-image.sh VERSION OUT [CONTAINERD_BIN_DIR]}
bindir=${3:-}
moddir="$BUNDLE_SRC/etcd/$want"
[[ -f $moddir/go.mod ]] || die "etcd-image.sh: no module for etcd $want at $moddir/go.mod"

version=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
[[ $version == "$want" && $version =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "etcd-image.sh: $moddir/go.mod requires go.etcd.io/etcd/server/v3 '$version', want $want"
name=registry.k8s.io/etcd:${version#v}-0

sources=$(cd "$BUNDLE_SRC" && cat "etcd/$version/go.mod" "etcd/$version/go.sum" "etcd/$version"/*.go ociimage/*.go cmd/ociarchive/*.go \
  scripts/verify-image.sh "scripts/$(basename "$0")" | sha256sum | cut -c1-16)
key="etcd-image $name $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "etcd-image: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=$tmp/var/lib/eggo/etcd-image
mkdir -p "$dir"
info=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -json "go.etcd.io/etcd/server/v3@$version")
commit=$(sed -n '0,/^\s*"Hash": "\([0-9a-f]*\)",\?$/s//\1/p' <<<"$info")
ldflags="-s -w"
[[ -n $commit ]] && ldflags+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=${commit:0:7}"
log "etcd $version: go build (cold: ~3 min on 2 cores)"
started=$SECONDS
(cd "$moddir" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" \
  go build -trimpath -ldflags "$ldflags" -o "$work/etcd" .)
(cd "$BUNDLE_SRC" && go build -o "$work/ociarchive" ./cmd/ociarchive)
# The binary must be the release go.mod names.
got=$("$work/etcd" --version 2>&1) || die "etcd-image.sh: etcd --version failed: $got"
[[ ${got%%$'\n'*} == "etcd Version: ${version#v}" ]] || die "etcd-image.sh: etcd --version says '${got%%$'\n'*}', want 'etcd Version: ${version#v}'"
"$work/ociarchive" -name "$name" -entrypoint /usr/local/bin/etcd -o "$dir/etcd.tar" "$work/etcd=/usr/local/bin/etcd"
record_from "$tmp" var/lib/eggo/etcd-image/etcd.tar "go.etcd.io/etcd/server/v3@$version as $name"
log "etcd-image: $name written ($(du -h --apparent-size "$dir/etcd.tar" | cut -f1)) in $((SECONDS - started)) s"
if [[ -n $bindir ]]; then
  "$BUNDLE_SRC/scripts/verify-image.sh" "$dir/etcd.tar" "$name" "$bindir" --once "etcd Version: ${version#v}" -- /usr/local/bin/etcd --version
fi
end_part "$tmp" "$out" "$key"
