#!/usr/bin/env bash
# flannel.sh OUT — builds the pod network's two programs from Go source:
#
#   OUT/usr/local/bin/flanneld  flannel (github.com/flannel-io/flannel), the
#                               node agent, run by systemd on each worker with
#                               --kube-subnet-mgr and the VXLAN backend
#   OUT/opt/cni/bin/flannel     the CNI flannel plugin, which reads flanneld's
#                               /run/flannel/subnet.env and delegates to the
#                               bridge and host-local plugins (Debian's, debs.sh)
#
# flanneld: upstream's module is its own main package, so it cannot be imported
# from a module of ours. It is built in a writable copy of the release's module
# (from the module cache, its hash checked against the one pinned here) with
# upstream's go.mod and go.sum, after flannel-main.sh deletes two backend
# imports from main.go (tencentvpc: SDK refused by the proxy; udp: cgo).
# Static (CGO_ENABLED=0), -trimpath, the release stamped into
# pkg/version.Version as upstream's Makefile does; `flanneld --version` must
# say it.
#
# The CNI plugin: `go build github.com/containernetworking/plugins/plugins/meta/flannel`
# (upstream's main, unchanged) in the test-only module ../flannel, whose go.mod
# pins containernetworking/plugins v0.9.1, the last release that has it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=${1:?usage: flannel.sh OUT}
moddir="$BUNDLE_SRC/flannel"

# The release, and the h1: hash of its module (as go.sum would hold it): the
# build is of exactly this source. A new release: change both, run this script.
flannel_version=v0.28.10
flannel_sum=h1:jt+uW6XVV01MBb3YFahG7Ue9UE3W6zlNlJMf3JtdcXI=
cni_pkg=github.com/containernetworking/plugins/plugins/meta/flannel

cni_version=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Version}}' github.com/containernetworking/plugins)
[[ $cni_version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "flannel.sh: $moddir/go.mod requires github.com/containernetworking/plugins '$cni_version', want vX.Y.Z"

sources=$(cd "$BUNDLE_SRC" && cat flannel/go.mod flannel/go.sum flannel/*.go scripts/flannel-main.sh scripts/flannel.sh | sha256sum | cut -c1-16)
key="flannel $flannel_version $flannel_sum cni-plugins $cni_version $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "flannel: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$tmp/usr/local/bin" "$tmp/opt/cni/bin"
started=$SECONDS

# The release's module, from the proxy into the module cache (checked against
# the checksum database) unless it is there already.
info=$(cd "$work" && GOFLAGS= go mod download -json "github.com/flannel-io/flannel@$flannel_version") ||
  die "flannel.sh: go mod download github.com/flannel-io/flannel@$flannel_version failed: $info"
dir=$(sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p' <<<"$info")
sum=$(sed -n 's/^\s*"Sum": "\(.*\)",\?$/\1/p' <<<"$info")
[[ $sum == "$flannel_sum" ]] || die "flannel.sh: github.com/flannel-io/flannel@$flannel_version has hash '$sum', want $flannel_sum"
[[ -f $dir/main.go && -f $dir/go.sum ]] || die "flannel.sh: no main.go and go.sum in $dir"
cp -r "$dir" "$work/flannel"
chmod -R u+w "$work/flannel"
"$BUNDLE_SRC/scripts/flannel-main.sh" "$work/flannel/main.go"

# The backends and the subnet manager eggo uses must be in; the two dropped out.
deps=$(cd "$work/flannel" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOTOOLCHAIN=local \
  go list -deps -f '{{.ImportPath}}' .) || die "flannel.sh: go list -deps of flannel $flannel_version failed"
for p in pkg/backend/vxlan pkg/backend/hostgw pkg/subnet/kube; do
  grep -qxF "github.com/flannel-io/flannel/$p" <<<"$deps" || die "flannel.sh: flanneld would be built without $p"
done
for p in pkg/backend/tencentvpc pkg/backend/udp; do
  grep -qxF "github.com/flannel-io/flannel/$p" <<<"$deps" && die "flannel.sh: flanneld would still import $p"
done
backends=$(sed -n 's#^github.com/flannel-io/flannel/pkg/backend/\([a-z0-9]*\)$#\1#p' <<<"$deps" | tr '\n' ' ')

log "flannel $flannel_version: go build flanneld (cold: ~4 min on 2 idle cores)"
# GOTOOLCHAIN=local: a Go older than upstream's go.mod asks for fails here
# instead of fetching another toolchain.
(cd "$work/flannel" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOTOOLCHAIN=local \
  go build -trimpath -ldflags "-s -w -X github.com/flannel-io/flannel/pkg/version.Version=$flannel_version" \
  -o "$tmp/usr/local/bin/flanneld" .)
log "flannel: go build the CNI plugin of containernetworking/plugins $cni_version"
(cd "$moddir" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" \
  go build -trimpath -ldflags "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$cni_version" \
  -o "$tmp/opt/cni/bin/flannel" "$cni_pkg")

# flanneld prints its version on stderr.
got=$("$tmp/usr/local/bin/flanneld" --version 2>&1) || die "flannel.sh: flanneld --version failed: $got"
[[ $got == "$flannel_version" ]] || die "flannel.sh: flanneld --version says '$got', want '$flannel_version'"
# Run without CNI_COMMAND, the plugin prints its name and version (stderr);
# CNI_COMMAND=VERSION prints the CNI spec versions it speaks: the network's
# conflist must name one of them.
about=$("$tmp/opt/cni/bin/flannel" 2>&1) || die "flannel.sh: the CNI plugin without CNI_COMMAND failed: $about"
[[ $about == "CNI flannel plugin $cni_version" ]] || die "flannel.sh: the CNI plugin says '$about', want 'CNI flannel plugin $cni_version'"
spec=$(CNI_COMMAND=VERSION "$tmp/opt/cni/bin/flannel" 2>&1) || die "flannel.sh: CNI_COMMAND=VERSION flannel failed: $spec"
[[ $spec == *'"supportedVersions":['*'"0.4.0"'* ]] || die "flannel.sh: the CNI plugin does not speak CNI 0.4.0: $spec"
# Static, as the rest of the bundle's Go programs: the build records it.
for b in usr/local/bin/flanneld opt/cni/bin/flannel; do
  buildinfo=$(go version -m "$tmp/$b")
  grep -qxF $'\tbuild\tCGO_ENABLED=0' <<<"$buildinfo" || die "flannel.sh: $b was not built with CGO_ENABLED=0"
done
record_from "$tmp" usr/local/bin/flanneld "github.com/flannel-io/flannel@$flannel_version (without the tencentvpc and udp backends)"
record_from "$tmp" opt/cni/bin/flannel "github.com/containernetworking/plugins@$cni_version"
log "flannel: flanneld $got ($(stat -c %s "$tmp/usr/local/bin/flanneld") bytes; backends: ${backends% }) and the CNI plugin $cni_version ($(stat -c %s "$tmp/opt/cni/bin/flannel") bytes; $spec) in $((SECONDS - started)) s"
end_part "$tmp" "$out" "$key"
