#!/usr/bin/env bash
# etcd.sh VERSION OUT — the hosts' etcd for the Kubernetes minors whose row
# in ../minors.tsv names an etcd release (not debian), from etcd's Go modules:
#
#   OUT/usr/local/bin/etcd     the module ../etcd/VERSION's main: upstream's
#                              etcdmain (go.etcd.io/etcd/server/v3 VERSION),
#                              the same program as the etcd image's
#   OUT/usr/local/bin/etcdctl  go.etcd.io/etcd/etcdctl/v3 VERSION's main
#                              package, unchanged (the module's tools.go keeps
#                              it in go.mod and go.sum)
#
# As upstream's build (scripts/build_lib.sh) makes them: CGO_ENABLED=0,
# -trimpath, the release's commit stamped into go.etcd.io/etcd/api/v3/
# version.GitSHA when the module proxy tells it. The release itself is a
# constant of api/v3/version: `etcd --version` must say `etcd Version:
# VERSION` and `etcdctl version` `etcdctl version: VERSION`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: etcd.sh VERSION OUT}
out=${2:?usage: etcd.sh VERSION OUT}
moddir="$BUNDLE_SRC/etcd/$version"
[[ -f $moddir/go.mod ]] || die "etcd.sh: no module for etcd $version at $moddir/go.mod"
for m in go.etcd.io/etcd/server/v3 go.etcd.io/etcd/etcdctl/v3; do
  got=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Version}}' "$m" 2>&1) || got="none ($got)"
  [[ $got == "$version" ]] ||
    die "etcd.sh: $moddir/go.mod requires $m $got, want $version (etcdctl: a tools.go importing go.etcd.io/etcd/etcdctl/v3/ctlv3, then go mod tidy)"
done

sources=$(cd "$BUNDLE_SRC" && cat "etcd/$version/go.mod" "etcd/$version/go.sum" "etcd/$version"/*.go "scripts/$(basename "$0")" | sha256sum | cut -c1-16)
key="etcd $version $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "etcd $version: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
bin=$tmp/usr/local/bin
mkdir -p "$bin"
commit=$(commit_of go.etcd.io/etcd/server/v3 "$version")
ldflags="-s -w"
[[ -n $commit ]] && ldflags+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=${commit:0:7}"
log "etcd $version: go build etcd and etcdctl (cold: ~3 min on 2 cores)"
(cd "$moddir" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" \
  go build -trimpath -ldflags "$ldflags" -o "$bin/etcd" . &&
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" \
    go build -trimpath -ldflags "$ldflags" -o "$bin/etcdctl" go.etcd.io/etcd/etcdctl/v3)

# Each says the release, and both are static.
got=$("$bin/etcd" --version 2>&1) || die "etcd.sh: etcd --version failed: $got"
[[ ${got%%$'\n'*} == "etcd Version: ${version#v}" ]] || die "etcd.sh: etcd --version says '${got%%$'\n'*}', want 'etcd Version: ${version#v}'"
got=$("$bin/etcdctl" version 2>&1) || die "etcd.sh: etcdctl version failed: $got"
[[ ${got%%$'\n'*} == "etcdctl version: ${version#v}" ]] || die "etcd.sh: etcdctl version says '${got%%$'\n'*}', want 'etcdctl version: ${version#v}'"
for b in etcd etcdctl; do
  grep -qxF $'\tbuild\tCGO_ENABLED=0' <<<"$(go version -m "$bin/$b")" || die "etcd.sh: $b was not built with CGO_ENABLED=0"
done
record_from "$tmp" usr/local/bin/etcd "go.etcd.io/etcd/server/v3@$version (etcdmain, in tools/bundle/etcd/$version)"
record_from "$tmp" usr/local/bin/etcdctl "go.etcd.io/etcd/etcdctl/v3@$version"
log "etcd $version: etcd ($(stat -c %s "$bin/etcd") bytes) and etcdctl ($(stat -c %s "$bin/etcdctl") bytes)${commit:+, commit ${commit:0:7}}"
end_part "$tmp" "$out" "$key"
