#!/usr/bin/env bash
# eggo-image.sh ROOT [CONTAINERD_BIN_DIR] — eggo's own image, the one an
# EggoCluster's Jobs and the controller's Deployment run: ROOT/KEY/eggo.tar,
# one layer written by ../cmd/ociarchive holding
#
#   /usr/local/bin/eggo, /usr/local/bin/eggo-controller   static (CGO_ENABLED=0), -trimpath
#   /usr/local/bin/eggo-capi                              the Cluster API providers (capi/, a module of its own)
#   /usr/local/bin/eggo-certs                             the cert-manager stand-in clusterctl installs (capi/cmd/eggo-certs)
#   /etc/passwd, /etc/group                               root and nonroot (65532)
#   /tmp, /home/nonroot                                   writable (mode 1777: every entry is root's)
#
# named eggo.io/eggo:TAG, user 65532:65532, entrypoint eggo-controller,
# HOME=/home/nonroot. TAG is `git describe --always --dirty` of the
# checkout (with -KEY8 after a -dirty one, so two dirty builds never share
# a tag); eggo's version is stamped as engine.Version+TAG, so `eggo
# version` names the build and a saved plan made by another build is
# refused. No CA certificates: nothing is fetched.
#
# Not part of the bundle (make bundle): the image changes with every eggo
# commit, the bundle with a Kubernetes version. KEY is a hash of the inputs
# (TAG, the Go version, every source file of the main module but tests and
# documents, ociimage, ociarchive and this script), so builds of different
# commits live side by side; the newest $EGGO_IMAGE_KEEP (default 5) are
# kept. With CONTAINERD_BIN_DIR the archive is imported into a throwaway
# containerd and `eggo version` run in it. Prints the archive's path last
# (and ROOT/KEY/name holds the image's name).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
root=${1:?usage: eggo-image.sh ROOT [CONTAINERD_BIN_DIR]}
bindir=${2:-}
repo=$(cd "$BUNDLE_SRC/../.." && pwd)
keep=${EGGO_IMAGE_KEEP:-5}

describe=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo nogit)
base=$(sed -n 's/^var Version = "\(.*\)"$/\1/p' "$repo/engine/engine.go")
[[ -n $base ]] || die "eggo-image: no 'var Version = \"…\"' in engine/engine.go"
# The main module's sources: what `go build` of eggo and eggo-controller
# can read (embedded templates too), tracked or not, but ignored files.
list_sources() {
  if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$repo" ls-files -co --exclude-standard -z
  else # not a checkout: every file
    (cd "$repo" && find . -type f -printf '%P\0')
  fi
}
sources=$(cd "$repo" && list_sources |
  grep -zv -e '^tools/' -e '^internal/harness/' -e '^website/' -e '_test\.go$' -e '\.md$' -e '/testdata/' |
  while IFS= read -r -d '' f; do if [[ -f $f ]]; then printf '%s\0' "$f"; fi; done | # not a deleted one
  LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-16)
writer=$(cd "$BUNDLE_SRC" && cat ociimage/*.go cmd/ociarchive/*.go scripts/eggo-image.sh scripts/lib.sh | sha256sum | cut -c1-16)
keyhash=$(printf '%s\n' "$describe" "$(go env GOVERSION)" "$sources" "$writer" | sha256sum | cut -c1-16)
tag=$describe
[[ $tag == *-dirty ]] && tag+="-${keyhash:0:8}"
name=eggo.io/eggo:$tag
version=$base+$tag
key="eggo-image $name $keyhash"
out=$root/$keyhash

mkdir -p "$root"
exec 9>"$root/.lock"
flock -n 9 || { log "eggo-image: another build holds $root/.lock; waiting"; flock 9; }
# Under the lock, a temporary or old directory is an interrupted build's.
rm -rf "$root"/*.tmp "$root"/*.old
if fresh "$out" "$key"; then
  log "eggo-image: $name cached at $out"
  touch "$out"
  echo "$out/eggo.tar"
  exit 0
fi

started=$SECONDS
tmp=$(begin_part "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "eggo-image: go build eggo, eggo-controller and eggo-capi ($version)"
(cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath \
  -ldflags "-s -w -X github.com/eggo-project/eggo/engine.Version=$version" \
  -o "$work/" . ./cmd/eggo-controller)
(cd "$repo/capi" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w" -o "$work/" ./cmd/eggo-capi ./cmd/eggo-certs)
(cd "$BUNDLE_SRC" && go build -o "$work/ociarchive" ./cmd/ociarchive)
got=$("$work/eggo" version 2>&1) || die "eggo-image: eggo version failed: $got"
[[ $got == "eggo v$version "* ]] || die "eggo-image: eggo version says '$got', want 'eggo v$version …'"
"$work/eggo-controller" --help >/dev/null 2>&1 || die "eggo-image: eggo-controller --help failed"
"$work/eggo-capi" --help >/dev/null 2>&1 || die "eggo-image: eggo-capi --help failed"
"$work/eggo-certs" --help >/dev/null 2>&1 || die "eggo-image: eggo-certs --help failed"

tree=$work/tree
mkdir -p "$tree/etc" "$tree/tmp" "$tree/home/nonroot"
chmod 1777 "$tree/tmp" "$tree/home/nonroot"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$tree/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$tree/etc/group"
chmod 644 "$tree/etc/passwd" "$tree/etc/group"
"$work/ociarchive" -name "$name" -entrypoint /usr/local/bin/eggo-controller -user 65532:65532 \
  -env PATH=/usr/local/bin -env HOME=/home/nonroot -workdir /home/nonroot -o "$tmp/eggo.tar" -tree "$tree" \
  "$work/eggo=/usr/local/bin/eggo" "$work/eggo-controller=/usr/local/bin/eggo-controller" "$work/eggo-capi=/usr/local/bin/eggo-capi" \
  "$work/eggo-certs=/usr/local/bin/eggo-certs"
echo "$name" >"$tmp/name"
log "eggo-image: $name written ($(du -h --apparent-size "$tmp/eggo.tar" | cut -f1)) in $((SECONDS - started)) s"
if [[ -n $bindir ]]; then
  "$BUNDLE_SRC/scripts/verify-image.sh" "$tmp/eggo.tar" "$name" "$bindir" --once "eggo v$version" -- /usr/local/bin/eggo version
fi
end_part "$tmp" "$out" "$key"

# The newest $keep builds stay (this one is the newest).
ls -1dt "$root"/*/ 2>/dev/null | tail -n +$((keep + 1)) | while read -r old; do
  [[ -f $old/$STAMP && $(head -c 11 "$old/$STAMP") == "eggo-image " ]] && rm -rf "$old"
done
echo "$out/eggo.tar"
