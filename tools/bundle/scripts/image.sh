#!/usr/bin/env bash
# image.sh TAG OUT [CONTAINERD_BIN_DIR] — builds the pause image archive at
# OUT/var/lib/eggo/images/pause.tar: the static pause program (../pause) in a
# one-layer OCI image named registry.k8s.io/pause:TAG (the pause column of
# ../minors.tsv: 3.10, 3.10.2; the same program under each name), written by
# ../cmd/ociarchive. No registry is reachable, so kubelet's sandbox image must
# come from the bundle. With CONTAINERD_BIN_DIR (Debian's containerd, ctr, runc
# as the bundle ships them) the archive is also imported into a throwaway
# containerd and run once (verify-image.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tag=${1:?usage: image.sh TAG OUT [CONTAINERD_BIN_DIR]}
out=${2:?usage: image.sh TAG OUT [CONTAINERD_BIN_DIR]}
bindir=${3:-}
[[ $tag =~ ^[0-9]+(\.[0-9]+)+$ ]] || die "image.sh: pause tag '$tag' is not N.N[.N]"
name=registry.k8s.io/pause:$tag

sources=$(cd "$BUNDLE_SRC" && cat go.mod pause/*.go ociimage/*.go cmd/ociarchive/*.go scripts/verify-image.sh "scripts/$(basename "$0")" | sha256sum | cut -c1-16)
key="image $name $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "image: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$tmp/var/lib/eggo/images"
(cd "$BUNDLE_SRC" &&
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w" -o "$work/pause" ./pause &&
  go build -o "$work/ociarchive" ./cmd/ociarchive)
"$work/ociarchive" -name "$name" -entrypoint /pause -user 65535:65535 \
  -o "$tmp/var/lib/eggo/images/pause.tar" "$work/pause=/pause"
record_from "$tmp" var/lib/eggo/images/pause.tar "github.com/eggo-project/eggo/tools/bundle/pause (eggo's, sources $sources) as $name"
log "image: $name written ($(stat -c %s "$tmp/var/lib/eggo/images/pause.tar") bytes)"
if [[ -n $bindir ]]; then
  "$BUNDLE_SRC/scripts/verify-image.sh" "$tmp/var/lib/eggo/images/pause.tar" "$name" "$bindir"
fi
end_part "$tmp" "$out" "$key"
