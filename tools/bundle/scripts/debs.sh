#!/usr/bin/env bash
# debs.sh OUT [GROUP...] — places Debian bookworm's binaries under OUT, at the
# paths a host gets them from the bundle, for each GROUP (all three when none
# is named):
#
#   etcd     OUT/usr/local/bin/etcd, etcdctl          (etcd-server, etcd-client)
#   runtime  OUT/usr/local/bin/containerd, containerd-shim-runc-v2, ctr, runc
#                                                     (containerd, runc)
#   cni      OUT/opt/cni/bin/…, every plugin the package ships
#                                                     (containernetworking-plugins)
#
# build.sh's part .parts/debs has all three: the bundles of minors whose row
# in ../minors.tsv says debian for all three use it, and its containerd,
# ctr and runc check every image archive (verify-image.sh). A row with
# debian for only some gets a part of those groups (.parts/debs-GROUP-…).
# The packages are fetched with apt-get download and unpacked with dpkg-deb
# -x: nothing is installed on this machine. Each file's package and version
# go into the part's $FROM (the MANIFEST's "# from:" lines).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=${1:?usage: debs.sh OUT [GROUP...]}
shift
groups=("$@")
((${#groups[@]})) || groups=(etcd runtime cni)
declare -A group_packages=([etcd]="etcd-server etcd-client" [runtime]="containerd runc" [cni]="containernetworking-plugins")
packages=()
for g in "${groups[@]}"; do
  [[ -n ${group_packages[$g]:-} ]] || die "debs: unknown group '$g' (etcd, runtime, cni)"
  packages+=(${group_packages[$g]})
done

# candidates: "package=version" for each package apt would install (one apt-cache
# call: each costs over half a second).
candidates() {
  apt-cache policy "${packages[@]}" 2>/dev/null |
    awk '/^[^ ].*:$/ {p = substr($0, 1, length($0) - 1)} $1 == "Candidate:" && $2 != "(none)" {print p "=" $2}'
}
mapfile -t versions < <(candidates)
# A fresh machine has no package lists: apt knows no candidate until an update.
if ((${#versions[@]} < ${#packages[@]})); then
  log "debs: apt has no version of some of ${packages[*]}: apt-get update"
  apt-get update -qq || die "debs: apt-get update failed"
  mapfile -t versions < <(candidates)
fi
declare -A version_of=()
for v in "${versions[@]}"; do version_of[${v%%=*}]=${v#*=}; done
for p in "${packages[@]}"; do
  [[ -n ${version_of[$p]:-} ]] || die "debs: Debian package $p has no installable version (apt-cache policy $p)"
done

key="debs ${groups[*]}: ${versions[*]} $(sha256sum <"$0" | cut -c1-16)"
fresh "$out" "$key" && { log "debs: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "debs: apt-get download ${versions[*]}"
# apt drops privileges to _apt for downloads, which cannot write to a root-owned
# mktemp directory; downloading as root is what we want here.
(cd "$work" && apt-get download -qq -o APT::Sandbox::User=root "${versions[@]}") ||
  die "debs: apt-get download ${versions[*]} failed"
# Each package on its own, so every file is known by its package.
for p in "${packages[@]}"; do
  v=${version_of[$p]}
  # apt-get download writes an epoch's colon as %3a.
  deb=$(compgen -G "$work/${p}_${v/:/%3a}_*.deb") || die "debs: $p=$v was not downloaded"
  mkdir -p "$work/root/$p"
  dpkg-deb -x "$deb" "$work/root/$p"
done

# place PACKAGE SRC DEST: PACKAGE's file SRC at DEST (inside the bundle root).
place() {
  [[ -f $work/root/$1$2 ]] || die "debs: $2 is not in the Debian package $1=${version_of[$1]}"
  mkdir -p "$(dirname "$tmp$3")"
  install -m 0755 "$work/root/$1$2" "$tmp$3"
  record_from "$tmp" "${3#/}" "debian:$1 ${version_of[$1]}"
}
placed=()
for g in "${groups[@]}"; do
  case $g in
  etcd)
    place etcd-server /usr/bin/etcd /usr/local/bin/etcd
    place etcd-client /usr/bin/etcdctl /usr/local/bin/etcdctl
    placed+=(etcd etcdctl)
    ;;
  runtime)
    place containerd /usr/bin/containerd /usr/local/bin/containerd
    place containerd /usr/bin/containerd-shim-runc-v2 /usr/local/bin/containerd-shim-runc-v2
    place containerd /usr/bin/ctr /usr/local/bin/ctr
    place runc /usr/sbin/runc /usr/local/bin/runc
    placed+=(containerd containerd-shim-runc-v2 ctr runc)
    ;;
  cni)
    plugins=0
    for f in "$work"/root/containernetworking-plugins/usr/lib/cni/*; do
      [[ -f $f && -x $f ]] || continue
      place containernetworking-plugins "/usr/lib/cni/$(basename "$f")" "/opt/cni/bin/$(basename "$f")"
      plugins=$((plugins + 1))
    done
    for p in bridge host-local loopback portmap; do
      [[ -x $tmp/opt/cni/bin/$p ]] || die "debs: CNI plugin $p missing from containernetworking-plugins"
    done
    placed+=("$plugins CNI plugins")
    ;;
  esac
done
log "debs: placed ${placed[*]}"
end_part "$tmp" "$out" "$key"
