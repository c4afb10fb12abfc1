#!/usr/bin/env bash
# bundles.sh PENDING CACHE VERSION... — make test's background bundle
# builds (test.sh says why): each VERSION's bundle, in order, built by
# bundle's build.sh on idle CPU time (idle.sh). PENDING/VERSION.building is
# removed when VERSION is built (and "VERSION N s" added to PENDING/times)
# or renamed VERSION.failed when its build failed; PENDING/VERSION.log is
# its output. The test harness waits on these files (eggotest.Bundle).
set -uo pipefail
pending=${1:?usage: bundles.sh PENDING CACHE VERSION...}
cache=${2:?usage: bundles.sh PENDING CACHE VERSION...}
shift 2
here=$(dirname "$0")
for v in "$@"; do touch "$pending/$v.building"; done
for v in "$@"; do
  if "$here/idle.sh" "$here/../bundle/scripts/build.sh" "$cache" "$v" >"$pending/$v.log" 2>&1; then
    rm -f "$pending/$v.building"
    echo "$v $SECONDS s" >>"$pending/times"
  else
    mv "$pending/$v.building" "$pending/$v.failed"
  fi
done
