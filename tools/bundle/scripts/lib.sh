# lib.sh — shared by the bundle scripts (sourced, not run).
#
# Every step builds into a temporary directory beside its output and renames it
# into place with a stamp file written last, so an interrupted build never
# leaves something that looks complete. The stamp holds a key made of the
# step's inputs: a step is skipped only when its stamp exists and the key
# matches.

BUNDLE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KUBE_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
STAMP=.eggo-bundle-stamp
# Beside the stamp, each part says where each of its files comes from: one
# line per file, "PATH SOURCE" (PATH relative to the part, SOURCE the module
# at its version or the Debian package and its version). assemble.sh copies
# it into the MANIFEST and refuses a file without one.
FROM=.eggo-bundle-from

# The flags of every go build and go list of a part (GOFLAGS=$BUILD_GOFLAGS).
# -mod=readonly: a part is built from its pinned go.sum, never a changed one.
# -gcflags=all=-dwarf=false: every binary is linked with -s -w (stripped, as
# Kubernetes' release build links its own), so the DWARF the compiler would
# write for each package is thrown away by the linker; not writing it saves
# ~8 % of the compile (etcd 3.6.8 cold, two runs each: 59 and 63 s instead of
# 65 and 68; 93–98 s of CPU instead of 104–108), ~3 min
# of a cold build of the default bundles. bundle-test compiles the etcd
# program's tests with the same flags, so it reuses the bundle's packages.
BUILD_GOFLAGS="-mod=readonly -gcflags=all=-dwarf=false"

log() { echo "bundle: $*" >&2; }
die() { echo "bundle: $*" >&2; exit 1; }

# fresh DIR KEY: DIR is complete and was built from the same inputs.
fresh() { [[ -f $1/$STAMP && $(cat "$1/$STAMP") == "$2" ]]; }

# begin_part OUT: prints a new empty temporary directory beside OUT, and
# notes when the part began (end_part says how long it took: what a cold
# build costs, part by part).
begin_part() {
  mkdir -p "$(dirname "$1")"
  rm -rf "$1.tmp" "$1.began"
  mkdir "$1.tmp"
  date +%s >"$1.began"
  echo "$1.tmp"
}

# end_part TMP OUT KEY: stamps TMP and moves it to OUT, replacing any older OUT.
end_part() {
  local began
  began=$(cat "$2.began" 2>/dev/null) && log "$(basename "$2"): built in $(($(date +%s) - began)) s"
  rm -f "$2.began"
  echo "$3" >"$1/$STAMP"
  rm -rf "$2.old"
  [[ -e $2 ]] && mv "$2" "$2.old"
  mv "$1" "$2"
  rm -rf "$2.old"
}

# record_from TMP PATH SOURCE...: records in the part being built at TMP
# that its file PATH comes from SOURCE.
record_from() {
  local tmp=$1 path=$2
  shift 2
  [[ -f $tmp/$path ]] || die "record_from: $tmp has no $path"
  echo "$path $*" >>"$tmp/$FROM"
}

# module_copy MODULE VERSION SUM DEST: a writable copy of a release's module
# at DEST (downloaded into the module cache and checked against the checksum
# database unless it is there already), whose h1: hash must be SUM, the one
# the calling script pins: the build is of exactly this source.
module_copy() {
  local mod=$1 version=$2 want=$3 dest=$4 info dir sum
  [[ -n $want ]] || die "no pinned hash for $mod@$version"
  info=$(cd "$(dirname "$dest")" && GOFLAGS= go mod download -json "$mod@$version") ||
    die "go mod download $mod@$version failed: $info"
  dir=$(sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p' <<<"$info")
  sum=$(sed -n 's/^\s*"Sum": "\(.*\)",\?$/\1/p' <<<"$info")
  [[ $sum == "$want" ]] || die "$mod@$version has hash '$sum', want $want"
  cp -r "$dir" "$dest"
  chmod -R u+w "$dest"
}

# commit_of MODULE VERSION: the release's commit when the module proxy
# tells it (its origin), else nothing.
commit_of() {
  sed -n '0,/^\s*"Hash": "\([0-9a-f]*\)",\?$/s//\1/p' <<<"$(cd / && GOFLAGS= GOWORK=off go list -m -json "$1@$2")"
}

# kube_ldflags VERSION MODDIR: prints the -ldflags that stamp Kubernetes
# VERSION into a binary as its own release build does (hack/lib/version.sh),
# with the tag's commit and time from the module MODDIR requires: without
# them a binary reports v0.0.0-master. Shared by kube.sh and conformance.sh.
kube_ldflags() {
  local version=$1 moddir=$2 minor info commit date flags="-s -w" pkg
  [[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "$version is not v1.Y.Z"
  minor=${BASH_REMATCH[1]}
  info=$(cd "$moddir" && go list -m -json "k8s.io/kubernetes@$version")
  commit=$(sed -n '0,/^\s*"Hash": "\([0-9a-f]*\)",\?$/s//\1/p' <<<"$info")
  date=$(sed -n '0,/^\s*"Time": "\(.*\)",\?$/s//\1/p' <<<"$info")
  [[ -n $date ]] || die "no release time for k8s.io/kubernetes@$version"
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    flags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
    [[ -n $commit ]] && flags+=" -X $pkg.gitCommit=$commit"
  done
  echo "$flags"
}

# Go is where the Makefile says it is, also when a script runs on its own.
command -v go >/dev/null || PATH=/usr/local/go/bin:$PATH
