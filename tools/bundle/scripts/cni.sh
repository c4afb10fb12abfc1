#!/usr/bin/env bash
# cni.sh VERSION OUT — the CNI plugins of github.com/containernetworking/plugins
# VERSION at OUT/opt/cni/bin/, for the Kubernetes minors whose row in
# ../minors.tsv names a release in its cni column (the others take Debian's
# containernetworking-plugins, debs.sh). The CNI flannel plugin is not among
# them (it left this module in v1.0.0): flannel.sh builds it.
#
# Built as upstream's release is (build_linux.sh: every directory of
# plugins/meta, plugins/main and plugins/ipam but windows; scripts/release.sh:
# CGO_ENABLED=0, -extldflags -static, the tag stamped into
# pkg/utils/buildversion.BuildVersion), in a writable copy of the release's
# module (its hash pinned below) with upstream's go.mod and go.sum, -trimpath.
# Run without CNI_COMMAND each plugin must say `CNI NAME plugin VERSION`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: cni.sh VERSION OUT}
out=${2:?usage: cni.sh VERSION OUT}
mod=github.com/containernetworking/plugins

# The h1: hash of each release's module, as go.sum would hold it: the build
# is of exactly this source. A new release: add its hash here.
declare -A module_sum=(
  [v1.8.0]=h1:WjGbV/0UQyo8A4qBsAh6GaDAtu1hevxVxsEuqtBqUFk=
  [v1.9.1]=h1:8oU6WsIsU3bpnNZuvHp74a6cE1MJwbj2P7s4/yTUNlA=
)
sum=${module_sum[$version]:-}
[[ -n $sum ]] || die "cni: no pinned hash for $mod@$version: add it to cni.sh's module_sum"
# The plugins a bundle needs whatever the release: the pod network's
# (flannel delegates to bridge and host-local), and what Debian's package
# ships besides, so a minor moving off Debian's loses none.
required=(bandwidth bridge dhcp firewall host-device host-local ipvlan loopback macvlan portmap ptp sbr static tuning vlan vrf)

key="cni $mod@$version $sum $(go env GOVERSION) $(sha256sum <"$0" | cut -c1-16)"
fresh "$out" "$key" && { log "cni $version: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$tmp/opt/cni/bin"
src=$work/plugins
module_copy "$mod" "$version" "$sum" "$src"

pkgs=()
for d in "$src"/plugins/meta/* "$src"/plugins/main/* "$src"/plugins/ipam/*; do
  [[ -d $d && $(basename "$d") != windows ]] && pkgs+=("./${d#"$src"/}")
done
log "cni $version: go build ${#pkgs[@]} plugins (cold: ~2 min on 2 cores)"
# One go build for all: GOTOOLCHAIN=local, as for the other modules built in
# place (a Go older than upstream's go.mod asks for fails instead of fetching one).
(cd "$src" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOTOOLCHAIN=local \
  go build -trimpath -ldflags "-s -w -extldflags -static -X $mod/pkg/utils/buildversion.BuildVersion=$version" \
  -o "$tmp/opt/cni/bin/" "${pkgs[@]}")

names=()
for p in "${pkgs[@]}"; do
  name=$(basename "$p")
  file=$tmp/opt/cni/bin/$name
  [[ -x $file ]] || die "cni: go build made no $name"
  # Without CNI_COMMAND a plugin prints its name and release (stderr).
  about=$("$file" 2>&1 </dev/null) || true
  [[ ${about%%$'\n'*} == "CNI $name plugin $version" ]] || die "cni: $name says '${about%%$'\n'*}', want 'CNI $name plugin $version'"
  grep -qxF $'\tbuild\tCGO_ENABLED=0' <<<"$(go version -m "$file")" || die "cni: $name was not built with CGO_ENABLED=0"
  record_from "$tmp" "opt/cni/bin/$name" "$mod@$version"
  names+=("$name")
done
for p in "${required[@]}"; do
  [[ -x $tmp/opt/cni/bin/$p ]] || die "cni: $mod $version has no $p plugin"
done
log "cni $version: ${names[*]}"
end_part "$tmp" "$out" "$key"
