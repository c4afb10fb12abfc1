#!/usr/bin/env bash
# debs.sh OUT — places etcd, etcdctl, containerd (with its runc shim and ctr), runc
# and the CNI plugins from Debian's packages under OUT, at the paths a host gets
# them from the bundle: OUT/usr/local/bin/… and OUT/opt/cni/bin/….
# The packages are fetched with apt-get download and unpacked with dpkg-deb -x:
# nothing is installed on this machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=${1:?usage: debs.sh OUT}
packages=(etcd-server etcd-client containerd runc containernetworking-plugins)

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
for p in "${packages[@]}"; do
  [[ " ${versions[*]} " == *" $p="* ]] ||
    die "debs: Debian package $p has no installable version (apt-cache policy $p)"
done

key="debs ${versions[*]} $(sha256sum <"$0" | cut -c1-16)"
fresh "$out" "$key" && { log "debs: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "debs: apt-get download ${versions[*]}"
# apt drops privileges to _apt for downloads, which cannot write to a root-owned
# mktemp directory; downloading as root is what we want here.
(cd "$work" && apt-get download -qq -o APT::Sandbox::User=root "${versions[@]}") ||
  die "debs: apt-get download ${versions[*]} failed"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

mkdir -p "$tmp/usr/local/bin" "$tmp/opt/cni/bin"
# place SRC (inside the unpacked packages) at DEST (inside the bundle root).
place() {
  [[ -f $work/root$1 ]] || die "debs: $1 is not in the Debian packages (${versions[*]})"
  install -m 0755 "$work/root$1" "$tmp$2"
}
place /usr/bin/etcd /usr/local/bin/etcd
place /usr/bin/etcdctl /usr/local/bin/etcdctl
place /usr/bin/containerd /usr/local/bin/containerd
place /usr/bin/containerd-shim-runc-v2 /usr/local/bin/containerd-shim-runc-v2
place /usr/bin/ctr /usr/local/bin/ctr
place /usr/sbin/runc /usr/local/bin/runc
plugins=0
for f in "$work"/root/usr/lib/cni/*; do
  [[ -f $f && -x $f ]] || continue
  install -m 0755 "$f" "$tmp/opt/cni/bin/$(basename "$f")"
  plugins=$((plugins + 1))
done
for p in bridge host-local loopback portmap; do
  [[ -x $tmp/opt/cni/bin/$p ]] || die "debs: CNI plugin $p missing from containernetworking-plugins"
done
log "debs: placed etcd, etcdctl, containerd, containerd-shim-runc-v2, ctr, runc and $plugins CNI plugins"
end_part "$tmp" "$out" "$key"
