#!/usr/bin/env bash
# build.sh CACHE VERSION... — builds eggo's offline package bundle, one per
# Kubernetes VERSION, at CACHE/bundle/VERSION (layout: ../README.md), and prints
# CACHE/bundle as its last line.
#
# The parts are built once under CACHE/bundle/.parts and shared by every
# version: Debian's binaries (debs.sh), the pause image (image.sh), the CoreDNS
# image (coredns.sh), flanneld and the CNI flannel plugin (flannel.sh), each
# version's Kubernetes binaries (kube.sh) and its control plane's images for
# the pod implementation (control-plane-images.sh), and the etcd image for
# static-pod etcd (etcd-image.sh). Each part and each bundle is skipped
# when its stamp says it is complete and was built from the same inputs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cache=${1:?usage: build.sh CACHE VERSION...}
shift
(($# > 0)) || die "usage: build.sh CACHE VERSION..."
root="$cache/bundle"
parts="$root/.parts"
mkdir -p "$parts"

# Two builds at once would trample each other's temporary directories.
exec 9>"$root/.lock"
flock -n 9 || { log "another bundle build holds $root/.lock; waiting"; flock 9; }

started=$SECONDS
"$BUNDLE_SRC/scripts/debs.sh" "$parts/debs"
"$BUNDLE_SRC/scripts/image.sh" "$parts/image" "$parts/debs/usr/local/bin"
"$BUNDLE_SRC/scripts/coredns.sh" "$parts/coredns" "$parts/debs/usr/local/bin"
"$BUNDLE_SRC/scripts/flannel.sh" "$parts/flannel"
"$BUNDLE_SRC/scripts/etcd-image.sh" "$parts/etcd-image" "$parts/debs/usr/local/bin"
for v in "$@"; do
  "$BUNDLE_SRC/scripts/kube.sh" "$v" "$parts/kube-$v"
  "$BUNDLE_SRC/scripts/control-plane-images.sh" "$v" "$parts/kube-$v" "$parts/control-plane-$v" "$parts/debs/usr/local/bin"
done
for v in "$@"; do
  "$BUNDLE_SRC/scripts/assemble.sh" "$root/$v" "$v" "$parts/debs" "$parts/image" "$parts/coredns" "$parts/flannel" \
    "$parts/kube-$v" "$parts/control-plane-$v" "$parts/etcd-image"
done
for v in "$@"; do log "$root/$v: $(du -sh --apparent-size "$root/$v" | cut -f1)"; done
# The versions share their Debian binaries and images through hard links.
log "done in $((SECONDS - started)) s; $(du -sh "$root" | cut -f1) on disk in $root"
echo "$root"
