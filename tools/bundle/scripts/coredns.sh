#!/usr/bin/env bash
# coredns.sh VERSION OUT [CONTAINERD_BIN_DIR] — builds the CoreDNS image
# archive at OUT/var/lib/eggo/images/coredns.tar: CoreDNS from the test-only
# module ../coredns/VERSION (its go.mod pins the release VERSION; the coredns
# column of ../minors.tsv names it), static, stamped with the release's
# commit as upstream's Makefile does (when the module proxy tells it), in a
# one-layer OCI image named
# registry.k8s.io/coredns/coredns:VERSION written by ../cmd/ociarchive.
# eggo's coredns add-on runs that image with imagePullPolicy: Never; containerd
# imports it from /var/lib/eggo/images on every worker.
#
# The image runs as root: the add-on's pod drops every capability but
# NET_BIND_SERVICE to bind port 53, as upstream's Deployment does (upstream's
# own image runs as nonroot with a file capability set on the binary, which a
# one-layer archive without extended attributes cannot carry).
# With CONTAINERD_BIN_DIR the archive is imported into a throwaway containerd
# and run once (verify-image.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
want=${1:?usage: coredns.sh VERSION OUT [CONTAINERD_BIN_DIR]}
out=${2:?usage: coredns.sh VERSION OUT [CONTAINERD_BIN_DIR]}
bindir=${3:-}
moddir="$BUNDLE_SRC/coredns/$want"
[[ -f $moddir/go.mod ]] || die "coredns.sh: no module for CoreDNS $want at $moddir/go.mod"

version=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Version}}' github.com/coredns/coredns)
[[ $version == "$want" ]] || die "coredns.sh: $moddir/go.mod requires github.com/coredns/coredns '$version', want $want"
name=registry.k8s.io/coredns/coredns:$version

sources=$(cd "$BUNDLE_SRC" && cat "coredns/$version/go.mod" "coredns/$version/go.sum" "coredns/$version"/*.go go.mod ociimage/*.go cmd/ociarchive/*.go \
  scripts/verify-image.sh "scripts/$(basename "$0")" | sha256sum | cut -c1-16)
key="coredns $name $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "coredns: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$tmp/var/lib/eggo/images"
info=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -json "github.com/coredns/coredns@$version")
commit=$(sed -n '0,/^\s*"Hash": "\([0-9a-f]*\)",\?$/s//\1/p' <<<"$info")
ldflags="-s -w"
# The module proxy tells the commit of some releases only (its origin):
# without it `coredns -version` names no commit, as etcd's builds here.
if [[ -n $commit ]]; then
  ldflags+=" -X github.com/coredns/coredns/coremain.GitCommit=${commit:0:7}"
else
  log "coredns $version: the module proxy tells no commit: none stamped"
fi
log "coredns $version: go build (cold: ~2 min on 2 cores)"
started=$SECONDS
(cd "$moddir" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" \
  go build -trimpath -ldflags "$ldflags" -o "$work/coredns" .)
(cd "$BUNDLE_SRC" && go build -o "$work/ociarchive" ./cmd/ociarchive)
# The binary must be the release go.mod names: upstream's version constant.
got=$("$work/coredns" -version 2>&1) || die "coredns.sh: coredns -version failed: $got"
[[ ${got%%$'\n'*} == "CoreDNS-${version#v}" ]] || die "coredns.sh: coredns -version says '${got%%$'\n'*}', want 'CoreDNS-${version#v}'"
"$work/ociarchive" -name "$name" -entrypoint /coredns -user 0:0 \
  -o "$tmp/var/lib/eggo/images/coredns.tar" "$work/coredns=/coredns"
record_from "$tmp" var/lib/eggo/images/coredns.tar "github.com/coredns/coredns@$version as $name"
log "coredns: $name written ($(stat -c %s "$tmp/var/lib/eggo/images/coredns.tar") bytes) in $((SECONDS - started)) s; ${got//$'\n'/, }"
if [[ -n $bindir ]]; then
  # Run once (-version), not served and stopped: a SIGTERM that reaches
  # CoreDNS before it installs its handler ends it with Go's default status
  # 2, which a loaded machine hit (v1.12.1, 2026-11-29). That CoreDNS serves
  # is the clusters' test: every end-to-end run resolves names through it.
  "$BUNDLE_SRC/scripts/verify-image.sh" "$tmp/var/lib/eggo/images/coredns.tar" "$name" "$bindir" \
    --once "CoreDNS-${version#v}" -- /coredns -version
fi
end_part "$tmp" "$out" "$key"
