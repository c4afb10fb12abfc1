#!/usr/bin/env bash
# control-plane-images.sh VERSION KUBE_PART OUT [CONTAINERD_BIN_DIR] — the
# control plane's images for the pod implementation (implementation = "pod"):
# OUT/var/lib/eggo/control-plane/NAME.tar for kube-apiserver,
# kube-controller-manager and kube-scheduler, each one layer holding the
# binary KUBE_PART built (kube.sh) at /usr/local/bin/NAME, named
# registry.k8s.io/NAME:VERSION as upstream's images are. The masters' static
# pods run them; nothing is pulled. With CONTAINERD_BIN_DIR each archive is
# imported into a throwaway containerd and run once with --version.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: control-plane-images.sh VERSION KUBE_PART OUT [CONTAINERD_BIN_DIR]}
kube=${2:?usage: control-plane-images.sh VERSION KUBE_PART OUT [CONTAINERD_BIN_DIR]}
out=${3:?usage: control-plane-images.sh VERSION KUBE_PART OUT [CONTAINERD_BIN_DIR]}
bindir=${4:-}
components=(kube-apiserver kube-controller-manager kube-scheduler)

[[ -f $kube/$STAMP ]] || die "control-plane-images: $kube is not complete (no $STAMP)"
sources=$(cd "$BUNDLE_SRC" && cat ociimage/*.go cmd/ociarchive/*.go scripts/verify-image.sh "$0" | sha256sum | cut -c1-16)
key="control-plane-images $version $(cat "$kube/$STAMP") $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "control-plane-images $version: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$BUNDLE_SRC" && go build -o "$work/ociarchive" ./cmd/ociarchive)
dir=$tmp/var/lib/eggo/control-plane
mkdir -p "$dir"
for c in "${components[@]}"; do
  bin=$kube/usr/local/bin/$c
  [[ -x $bin ]] || die "control-plane-images: $kube has no usr/local/bin/$c"
  name=registry.k8s.io/$c:$version
  "$work/ociarchive" -name "$name" -entrypoint "/usr/local/bin/$c" -o "$dir/$c.tar" "$bin=/usr/local/bin/$c"
  record_from "$tmp" "var/lib/eggo/control-plane/$c.tar" "k8s.io/kubernetes@$version as $name"
  log "control-plane-images: $name written ($(du -h --apparent-size "$dir/$c.tar" | cut -f1))"
  if [[ -n $bindir ]]; then
    "$BUNDLE_SRC/scripts/verify-image.sh" "$dir/$c.tar" "$name" "$bindir" --once "Kubernetes $version" -- "/usr/local/bin/$c" --version
  fi
done
end_part "$tmp" "$out" "$key"
