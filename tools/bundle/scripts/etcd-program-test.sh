#!/usr/bin/env bash
# etcd-program-test.sh RELEASE... — vets and tests the etcd program of each
# etcd RELEASE (tools/bundle/etcd/RELEASE: the image's etcd, which reads its
# bootstrap environment file) with the flags its bundle part is built with
# (etcd-image.sh, etcd.sh): the test then compiles only the program's own
# package, not etcd again (cold, a compile with other flags took 3 min).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
(($# > 0)) || die "usage: etcd-program-test.sh RELEASE..."
for r in "$@"; do
  d=$BUNDLE_SRC/etcd/$r
  [[ -f $d/go.mod ]] || die "etcd-program-test: no module for etcd $r at $d"
  log "etcd program $r: go vet and go test"
  (cd "$d" && CGO_ENABLED=0 GOFLAGS="$BUILD_GOFLAGS" go vet -trimpath . &&
    CGO_ENABLED=0 GOFLAGS="$BUILD_GOFLAGS" go test -trimpath -count=1 .)
done
