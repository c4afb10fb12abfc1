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
