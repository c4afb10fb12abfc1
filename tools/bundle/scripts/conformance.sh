#!/usr/bin/env bash
# conformance.sh VERSION OUT — builds Kubernetes VERSION's conformance tools
# into OUT from the test-only module conformance/VERSION
# (conformance/gen-gomod.sh), and prints OUT as its last line:
#
#   e2e.test  the e2e suite: go test -c of k8s.io/kubernetes/test/e2e
#   ginkgo    its runner, at the version kubernetes VERSION requires
#   agnhost   the program in most of the suite's test images
#
# Static and -trimpath like kube.sh's binaries; e2e.test and agnhost carry the
# release's version stamp. The tools run outside the cluster, so they are not
# part of the bundle. Skipped when OUT's stamp matches the inputs.
#
# With no cluster, e2e.test also writes what the module's two committed lists
# hold: conformance-tests.txt (the [Conformance] specs) and images.txt (every
# image the suite names, --list-images). A list that differs from the committed
# one fails the build; a missing one is written into the module directory.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
version=${1:?usage: conformance.sh VERSION OUT}
out=${2:?usage: conformance.sh VERSION OUT}
moddir="$BUNDLE_SRC/conformance/$version"
[[ -f $moddir/go.mod ]] || die "conformance.sh: no module for $version at $moddir/go.mod (run conformance/gen-gomod.sh $version)"

mkdir -p "$(dirname "$out")"
# Two builds at once would trample each other's temporary directory.
exec 9>"$out.lock"
flock -n 9 || { log "another build holds $out.lock; waiting"; flock 9; }

# The inputs that decide the output: a change to any of them rebuilds.
key="conformance $version $(go env GOVERSION) $(cat "$moddir/go.mod" "$moddir/go.sum" "$0" "$BUNDLE_SRC/scripts/lib.sh" | sha256sum | cut -c1-16)"
if fresh "$out" "$key"; then
  log "conformance $version: cached at $out"
  echo "$out"
  exit 0
fi

ldflags=$(kube_ldflags "$version" "$moddir")
ginkgo_version=$(cd "$moddir" && GOFLAGS="$BUILD_GOFLAGS" go list -m -f '{{.Version}}' github.com/onsi/ginkgo/v2)
tmp=$(begin_part "$out")
log "conformance $version: go test -c and go build (cold: long; the Go build cache keeps later runs short)"
started=$SECONDS
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$BUILD_GOFLAGS"
(cd "$moddir" && go test -c -vet=off -trimpath -ldflags "$ldflags" -o "$tmp/e2e.test" k8s.io/kubernetes/test/e2e)
(cd "$moddir" && go build -trimpath -ldflags "$ldflags" -o "$tmp/agnhost" k8s.io/kubernetes/test/images/agnhost)
(cd "$moddir" && go build -trimpath -ldflags "-s -w" -o "$tmp/ginkgo" github.com/onsi/ginkgo/v2/ginkgo)
log "conformance $version: built in $((SECONDS - started)) s"

# e2e.test writes a test-kuberc* directory into TMPDIR each time it starts
# and leaves it (a cold build left three in /tmp): this script's runs of it
# get a TMPDIR of their own, removed before the part is done.
e2e_tmp=$tmp/.tmpdir
mkdir -p "$e2e_tmp"
export TMPDIR=$e2e_tmp

# Each tool must be static and say what it is.
for b in e2e.test ginkgo agnhost; do
  go version -m "$tmp/$b" | grep -q '^\s*build\s*CGO_ENABLED=0$' || die "conformance.sh: $b is not static (CGO_ENABLED=0)"
done
got=$("$tmp/e2e.test" --version 2>&1) || die "conformance.sh: e2e.test --version failed: $got"
[[ $got == "$version" ]] || die "conformance.sh: e2e.test --version says '$got', want '$version'"
got=$("$tmp/ginkgo" version 2>&1) || die "conformance.sh: ginkgo version failed: $got"
[[ $got == "Ginkgo Version ${ginkgo_version#v}" ]] || die "conformance.sh: ginkgo version says '$got', want $ginkgo_version"
"$tmp/agnhost" --help >/dev/null 2>&1 || die "conformance.sh: agnhost --help failed"

# The lists, sorted byte-wise. The spec names come from --list-tests (which
# lists every spec); a ginkgo dry run with the conformance focus, as a real
# run would select, must count the same number.
"$tmp/e2e.test" --list-images | LC_ALL=C sort >"$tmp/images.txt"
"$tmp/e2e.test" --list-tests | sed -n 's/^    [^ ]*:[0-9]*: //p' | { grep -F '[Conformance]' || true; } |
  LC_ALL=C sort >"$tmp/conformance-tests.txt"
dry=$(cd "$tmp" && ./ginkgo --dry-run --no-color --focus='\[Conformance\]' ./e2e.test 2>&1) ||
  die "conformance.sh: ginkgo --dry-run failed: $(tail -n 20 <<<"$dry")"
ran=$(sed -n 's/^Ran \([0-9]*\) of [0-9]* Specs.*/\1/p' <<<"$dry")
count=$(wc -l <"$tmp/conformance-tests.txt")
((count > 0)) && [[ $ran == "$count" ]] ||
  die "conformance.sh: the ginkgo dry run selected '$ran' [Conformance] specs, --list-tests names $count"
log "conformance $version: $count [Conformance] tests (ginkgo --dry-run agrees), $(wc -l <"$tmp/images.txt") images"
for f in conformance-tests.txt images.txt; do
  if [[ ! -f $moddir/$f ]]; then
    cp "$tmp/$f" "$moddir/$f"
    log "conformance $version: wrote $moddir/$f (new: commit it)"
  elif ! cmp -s "$tmp/$f" "$moddir/$f"; then
    diff -u "$moddir/$f" "$tmp/$f" | head -n 20 >&2 || true
    die "conformance.sh: $moddir/$f differs from what e2e.test lists (if the module changed on purpose: cp $tmp/$f $moddir/)"
  fi
done

rm -rf "$e2e_tmp"
unset TMPDIR
end_part "$tmp" "$out" "$key"
log "conformance $version: $(cd "$out" && du -h --apparent-size e2e.test ginkgo agnhost | awk '{printf "%s %s ", $2, $1}')"
echo "$out"
