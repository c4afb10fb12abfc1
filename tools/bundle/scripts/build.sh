#!/usr/bin/env bash
# build.sh CACHE VERSION... — builds eggo's offline package bundle, one per
# Kubernetes VERSION, at CACHE/bundle/VERSION (layout: ../README.md), and prints
# CACHE/bundle as its last line.
#
# What goes into a version's bundle is its minor's row of ../minors.tsv:
# Debian's binaries (debs.sh) where the row says debian, else containerd and
# runc (runtime.sh), etcd and etcdctl (etcd.sh) and the CNI plugins (cni.sh)
# built from their Go modules; the pause image (image.sh), the CoreDNS image
# (coredns.sh) and the etcd image for static-pod etcd (etcd-image.sh) under
# the row's names; and for every minor flanneld and the CNI flannel plugin
# (flannel.sh), the version's Kubernetes binaries (kube.sh) and its control
# plane's images for the pod implementation (control-plane-images.sh).
#
# Each part is built once under CACHE/bundle/.parts/NAME-RELEASE and shared by
# every version whose row names the release. Each part and each bundle is
# skipped when its stamp says it is complete and was built from the same
# inputs, so an interrupted build resumes where it stopped.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cache=${1:?usage: build.sh CACHE VERSION...}
shift
(($# > 0)) || die "usage: build.sh CACHE VERSION..."
root="$cache/bundle"
parts="$root/.parts"
table="$BUNDLE_SRC/minors.tsv"

# row VERSION: sets the row_* variables from VERSION's minor's row.
row() {
  local minor line extra
  [[ $1 =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || die "build: $1 is not v1.Y.Z"
  minor=1.${BASH_REMATCH[1]}
  line=$(awk -v m="$minor" '$1 == m' "$table")
  [[ -n $line ]] || die "build: $table has no row for Kubernetes $minor (rows: $(awk '!/^#/ && NF {printf "%s ", $1}' "$table"))"
  read -r _ row_runtime row_etcd row_etcd_image row_cni row_coredns row_pause extra <<<"$line"
  [[ -n $row_pause && -z $extra ]] || die "build: $table's row $minor has not the 7 fields of its header: '$line'"
  [[ $row_runtime == debian || $row_runtime =~ ^v[0-9.]+/v[0-9.]+$ ]] ||
    die "build: $table's row $minor: runtime '$row_runtime' is neither debian nor CONTAINERD/RUNC"
}
for v in "$@"; do row "$v"; done # every version's row, before building anything

mkdir -p "$parts"
# Two builds at once would trample each other's temporary directories.
exec 9>"$root/.lock"
flock -n 9 || { log "another bundle build holds $root/.lock; waiting"; flock 9; }

started=$SECONDS
# Debian's binaries, all of them: the containerd every image is checked with.
"$BUNDLE_SRC/scripts/debs.sh" "$parts/debs"
bindir="$parts/debs/usr/local/bin"
"$BUNDLE_SRC/scripts/flannel.sh" "$parts/flannel"

declare -A built=() # the parts this run has built or found cached
# part DIR SCRIPT ARG...: runs SCRIPT ARG... once per run for DIR.
part() {
  local dir=$1
  shift
  [[ -n ${built[$dir]:-} ]] && return
  "$BUNDLE_SRC/scripts/$@"
  built[$dir]=1
}

declare -A bundle_parts=()
for v in "$@"; do
  row "$v"
  with=("$parts/flannel")
  debian=()
  [[ $row_etcd == debian ]] && debian+=(etcd)
  [[ $row_runtime == debian ]] && debian+=(runtime)
  [[ $row_cni == debian ]] && debian+=(cni)
  case ${#debian[@]} in
  3) with+=("$parts/debs") ;;
  0) ;;
  *)
    d="$parts/debs-$(IFS=-; echo "${debian[*]}")"
    part "$d" debs.sh "$d" "${debian[@]}"
    with+=("$d")
    ;;
  esac
  if [[ $row_runtime != debian ]]; then
    d="$parts/runtime-${row_runtime%/*}"
    part "$d" runtime.sh "$d" "${row_runtime%/*}" "${row_runtime#*/}"
    with+=("$d")
  fi
  if [[ $row_etcd != debian ]]; then
    d="$parts/etcd-$row_etcd"
    part "$d" etcd.sh "$row_etcd" "$d"
    with+=("$d")
  fi
  if [[ $row_cni != debian ]]; then
    d="$parts/cni-$row_cni"
    part "$d" cni.sh "$row_cni" "$d"
    with+=("$d")
  fi
  d="$parts/pause-$row_pause"
  part "$d" image.sh "$row_pause" "$d" "$bindir"
  with+=("$d")
  d="$parts/coredns-$row_coredns"
  part "$d" coredns.sh "$row_coredns" "$d" "$bindir"
  with+=("$d")
  d="$parts/etcd-image-$row_etcd_image"
  part "$d" etcd-image.sh "$row_etcd_image" "$d" "$bindir"
  with+=("$d")
  "$BUNDLE_SRC/scripts/kube.sh" "$v" "$parts/kube-$v"
  "$BUNDLE_SRC/scripts/control-plane-images.sh" "$v" "$parts/kube-$v" "$parts/control-plane-$v" "$bindir"
  with+=("$parts/kube-$v" "$parts/control-plane-$v")
  bundle_parts[$v]=$(printf '%s\n' "${with[@]}")
  log "$v: runtime $row_runtime, etcd $row_etcd (image $row_etcd_image), CNI $row_cni, CoreDNS $row_coredns, pause $row_pause"
done
for v in "$@"; do
  mapfile -t with <<<"${bundle_parts[$v]}"
  "$BUNDLE_SRC/scripts/assemble.sh" "$root/$v" "$v" "${with[@]}"
done
for v in "$@"; do log "$root/$v: $(du -sh --apparent-size "$root/$v" | cut -f1)"; done
# The versions share their parts' files through hard links.
log "done in $((SECONDS - started)) s; $(du -sh "$root" | cut -f1) on disk in $root"
echo "$root"
