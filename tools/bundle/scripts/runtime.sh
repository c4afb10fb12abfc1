#!/usr/bin/env bash
# runtime.sh OUT CONTAINERD_VERSION RUNC_VERSION — builds the container
# runtime of the current Kubernetes minors from Go source, static:
#
#   OUT/usr/local/bin/containerd               containerd 2 (github.com/containerd/containerd/v2)
#   OUT/usr/local/bin/containerd-shim-runc-v2  its runc shim
#   OUT/usr/local/bin/ctr                      its client
#   OUT/usr/local/bin/runc                     runc (github.com/opencontainers/runc), with seccomp
#
# Each is built in a writable copy of its release's module from the module
# cache (its hash checked against the one pinned below), with upstream's
# go.mod and go.sum, and the flags, tags and version stamps of upstream's
# Makefile for a static release (containerd: `make STATIC=1`, CGO off;
# runc: `make static` without libpathrs, a Rust library Debian lacks —
# runc's seccomp part is cgo and links Debian's libseccomp.a statically).
# The runc release must be the one containerd's release names
# (script/setup/runc-version): the pair upstream tested together.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=${1:?usage: runtime.sh OUT CONTAINERD_VERSION RUNC_VERSION}
containerd_version=${2:?usage: runtime.sh OUT CONTAINERD_VERSION RUNC_VERSION}
runc_version=${3:?usage: runtime.sh OUT CONTAINERD_VERSION RUNC_VERSION}

# The h1: hash of each release's module, as go.sum would hold it: the build
# is of exactly this source (lib.sh's module_copy checks it). A new
# release: add its hash here.
declare -A module_sum=(
  [github.com/containerd/containerd/v2@v2.3.7]=h1:7PGbgAVKE4ieQjFPv7+kwAv7f9dCtRpExZwjExHD/Fk=
  [github.com/opencontainers/runc@v1.5.2]=h1:eUUowc2WJCnFYzI87C1WqRcu356Dk/wsoi90y+2wEfE=
)
containerd_mod=github.com/containerd/containerd/v2
runc_mod=github.com/opencontainers/runc

# runc's seccomp support links libseccomp's static library (libseccomp-dev).
libseccomp=/usr/lib/x86_64-linux-gnu/libseccomp.a
if [[ ! -f $libseccomp ]]; then
  log "runtime: installing libseccomp-dev (runc links its static library)"
  { apt-get install -y --no-install-recommends libseccomp-dev >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends libseccomp-dev >/dev/null; }; } ||
    die "runtime: apt-get install libseccomp-dev failed"
fi
seccomp_version=$(dpkg-query -W -f '${Version}' libseccomp-dev)

sources=$(sha256sum "$BUNDLE_SRC/scripts/runtime.sh" | cut -c1-16)
key="containerd $containerd_version runc $runc_version libseccomp $seccomp_version $(go env GOVERSION) $sources"
fresh "$out" "$key" && { log "runtime: cached at $out"; exit 0; }

tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$tmp/usr/local/bin"

# containerd, ctr and the shim, as `make STATIC=1` builds them (GOTOOLCHAIN=local:
# a Go older than upstream's go.mod asks for fails here instead of fetching one).
ctd=$work/containerd
module_copy "$containerd_mod" "$containerd_version" "${module_sum[$containerd_mod@$containerd_version]:-}" "$ctd"
ctd_commit=$(commit_of "$containerd_mod" "$containerd_version")
named_runc=$(tr -d '[:space:]' <"$ctd/script/setup/runc-version")
[[ $named_runc == "$runc_version" ]] || die "runtime: containerd $containerd_version names runc $named_runc, not $runc_version"
stamp="-X $containerd_mod/version.Version=$containerd_version -X $containerd_mod/version.Package=$containerd_mod"
[[ -n $ctd_commit ]] && stamp+=" -X $containerd_mod/version.Revision=$ctd_commit"
log "runtime: go build containerd $containerd_version, ctr and containerd-shim-runc-v2 (cold: ~3 min on 2 idle cores)"
(cd "$ctd" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOTOOLCHAIN=local \
  go build -trimpath -tags "urfave_cli_no_docs osusergo netgo static_build" -ldflags "-s -w $stamp" \
  -o "$tmp/usr/local/bin/" ./cmd/containerd ./cmd/ctr)
(cd "$ctd" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOTOOLCHAIN=local \
  go build -trimpath -tags "urfave_cli_no_docs osusergo netgo static_build no_grpc" -ldflags "-s -w $stamp" \
  -o "$tmp/usr/local/bin/containerd-shim-runc-v2" ./cmd/containerd-shim-runc-v2)

# runc, as `make static` builds it but without libpathrs.
rc=$work/runc
module_copy "$runc_mod" "$runc_version" "${module_sum[$runc_mod@$runc_version]:-}" "$rc"
rc_commit=$(commit_of "$runc_mod" "$runc_version")
log "runtime: go build runc $runc_version with seccomp (libseccomp $seccomp_version, static)"
(cd "$rc" && CGO_ENABLED=1 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS" GOTOOLCHAIN=local \
  go build -trimpath -buildmode=pie -tags "seccomp urfave_cli_no_docs netgo osusergo" \
  -ldflags "-s -w ${rc_commit:+-X main.gitCommit=$rc_commit} -linkmode external -extldflags -static-pie" \
  -o "$tmp/usr/local/bin/runc" .)

# Each says its release, and none needs a shared library.
v=$("$tmp/usr/local/bin/containerd" --version) || die "runtime: containerd --version failed: $v"
[[ $v == "containerd $containerd_mod $containerd_version"* ]] || die "runtime: containerd --version says '$v'"
v=$("$tmp/usr/local/bin/ctr" --version) || die "runtime: ctr --version failed: $v"
[[ $v == "ctr $containerd_mod $containerd_version" ]] || die "runtime: ctr --version says '$v'"
v=$("$tmp/usr/local/bin/containerd-shim-runc-v2" -v) || die "runtime: containerd-shim-runc-v2 -v failed: $v"
[[ $v == *"Version:  $containerd_version"* ]] || die "runtime: containerd-shim-runc-v2 -v says '$v'"
v=$("$tmp/usr/local/bin/runc" --version) || die "runtime: runc --version failed: $v"
[[ $v == "runc version ${runc_version#v}"* && $v == *"libseccomp: "* ]] || die "runtime: runc --version says '$v', want ${runc_version#v} with libseccomp"
for b in containerd ctr containerd-shim-runc-v2 runc; do
  file=$tmp/usr/local/bin/$b
  # ldd says "not a dynamic executable" (static), "statically linked"
  # (static PIE), or lists the libraries with "=>".
  ldd "$file" 2>&1 | grep -q '=>' && die "runtime: $b is linked dynamically: $(ldd "$file" 2>&1 | tr '\n' ' ')"
done
for b in containerd ctr containerd-shim-runc-v2; do
  record_from "$tmp" "usr/local/bin/$b" "$containerd_mod@$containerd_version"
done
record_from "$tmp" usr/local/bin/runc "$runc_mod@$runc_version (libseccomp $seccomp_version, Debian's libseccomp-dev, linked in)"
log "runtime: $(tr '\n' ' ' <<<"$v"| sed 's/ *$//'); containerd $containerd_version ($(stat -c %s "$tmp/usr/local/bin/containerd") bytes)"
end_part "$tmp" "$out" "$key"
