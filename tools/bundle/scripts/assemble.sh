#!/usr/bin/env bash
# assemble.sh OUT VERSION PART... — makes the bundle for one Kubernetes version:
# OUT/amd64/ is the union of the parts (each a tree mirroring a host's root),
# and OUT/MANIFEST lists the version, every file's sha256 and, before it, the
# module or Debian package the file was built from (its part's $FROM; a file
# without one fails the bundle).
#
# Files are hard links into the parts (the same filesystem), so a second
# version costs only its own Kubernetes binaries on disk.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=${1:?usage: assemble.sh OUT VERSION PART...}
version=${2:?usage: assemble.sh OUT VERSION PART...}
shift 2
keys=""
for part in "$@"; do
  [[ -f $part/$STAMP ]] || die "assemble: part $part is not complete (no $STAMP)"
  keys+="$(cat "$part/$STAMP");"
done
key="bundle $version $(printf '%s' "$keys" | cat - "$0" | sha256sum | cut -c1-16)"
fresh "$out" "$key" && { log "bundle $version: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
mkdir -p "$tmp/amd64"
declare -A source_of=()
for part in "$@"; do
  declare -A part_from=()
  if [[ -f $part/$FROM ]]; then
    while read -r f src; do
      [[ -n $f ]] && part_from[$f]=$src
    done <"$part/$FROM"
  fi
  while read -r f; do
    [[ -e $tmp/amd64/$f ]] && die "assemble: $f comes from two parts (the second: $part)"
    [[ -n ${part_from[$f]:-} ]] || die "assemble: $part does not say where $f comes from (no line for it in its $FROM)"
    source_of[$f]=${part_from[$f]}
    mkdir -p "$(dirname "$tmp/amd64/$f")"
    ln "$part/$f" "$tmp/amd64/$f" 2>/dev/null || cp -p "$part/$f" "$tmp/amd64/$f"
  done < <(cd "$part" && find . -type f ! -name "$STAMP" ! -name "$FROM" -printf '%P\n')
  unset part_from
done
for b in "${KUBE_BINARIES[@]}" etcd etcdctl containerd containerd-shim-runc-v2 ctr runc flanneld; do
  [[ -x $tmp/amd64/usr/local/bin/$b ]] || die "assemble: bundle $version has no /usr/local/bin/$b"
done
# The pod network: flannel's CNI plugin delegates to bridge and host-local.
for p in flannel bridge host-local; do
  [[ -x $tmp/amd64/opt/cni/bin/$p ]] || die "assemble: bundle $version has no /opt/cni/bin/$p"
done
for img in pause coredns; do
  [[ -f $tmp/amd64/var/lib/eggo/images/$img.tar ]] || die "assemble: bundle $version has no $img image"
done
for img in kube-apiserver kube-controller-manager kube-scheduler; do
  [[ -f $tmp/amd64/var/lib/eggo/control-plane/$img.tar ]] || die "assemble: bundle $version has no $img image"
done
[[ -f $tmp/amd64/var/lib/eggo/etcd-image/etcd.tar ]] || die "assemble: bundle $version has no etcd image"

{
  echo "# eggo package bundle for Kubernetes $version. Check it with:"
  echo "#   cd $out && grep -v '^#' MANIFEST | sha256sum -c"
  echo "# version: $version"
  echo "# arch: amd64"
  for part in "$@"; do echo "# part: $(cat "$part/$STAMP")"; done
  # Each file: where it comes from, then its sha256.
  (cd "$tmp" && find amd64 -type f -printf '%P\t%p\n' | LC_ALL=C sort | cut -f2) | while read -r f; do
    echo "# from: $f ${source_of[${f#amd64/}]}"
    (cd "$tmp" && sha256sum "$f")
  done
} >"$tmp/MANIFEST"
log "bundle $version: $(grep -vc '^#' "$tmp/MANIFEST") files"
end_part "$tmp" "$out" "$key"
