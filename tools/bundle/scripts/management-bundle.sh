#!/usr/bin/env bash
# management-bundle.sh BUNDLE IMAGE OUT [ARCHIVE...] — the bundle a GitOps
# management cluster is deployed from: OUT is a copy of BUNDLE (hard links:
# no space taken, nothing of BUNDLE changed) with eggo's own image IMAGE
# (make eggo-image's eggo.tar) among the images every node's containerd
# imports when it starts, so the controller and its Jobs find eggo's image
# on each node and nothing is pulled. Each further ARCHIVE (an image
# archive, as make capi-parts's images/cluster-api-controller.tar for a
# Cluster API management cluster) joins them under its own name. Made anew
# each time (eggo's image changes with every commit). Prints OUT last.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
usage="usage: management-bundle.sh BUNDLE IMAGE OUT [ARCHIVE...]"
bundle=${1:?$usage}
image=${2:?$usage}
out=${3:?$usage}
shift 3
[[ -f $bundle/MANIFEST ]] || die "management-bundle: no bundle at $bundle (make bundle)"
[[ -f $image ]] || die "management-bundle: no image archive $image (make eggo-image)"
images=amd64/var/lib/eggo/images
[[ -d $bundle/$images ]] || die "management-bundle: $bundle has no $images"
for a in "$@"; do
  [[ -f $a && $a == *.tar ]] || die "management-bundle: no image archive $a"
  [[ $(basename "$a") != eggo.tar && ! -e $bundle/$images/$(basename "$a") ]] ||
    die "management-bundle: $a would replace the bundle's $(basename "$a")"
done

tmp=$(begin_part "$out")
rmdir "$tmp"
cp -al "$bundle" "$tmp"
# A copy, not a link, when IMAGE is on another filesystem.
ln "$image" "$tmp/$images/eggo.tar" 2>/dev/null || cp "$image" "$tmp/$images/eggo.tar"
for a in "$@"; do
  ln "$a" "$tmp/$images/$(basename "$a")" 2>/dev/null || cp "$a" "$tmp/$images/$(basename "$a")"
done
end_part "$tmp" "$out" "management-bundle $(basename "$bundle") $(cat "$(dirname "$image")/name" 2>/dev/null || echo "$image")"
log "management-bundle: $out ($(basename "$bundle") with $(cat "$(dirname "$image")/name" 2>/dev/null || echo eggo.tar))"
echo "$out"
