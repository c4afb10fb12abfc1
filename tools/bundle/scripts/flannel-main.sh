#!/usr/bin/env bash
# flannel-main.sh MAIN_GO — deletes, in a writable copy of upstream flannel's
# main.go, the imports of two backends that cannot be built here:
#
#   pkg/backend/tencentvpc  its SDK (github.com/tencentcloud/tencentcloud-sdk-go/
#                           tencentcloud/vpc) is refused by the module proxy (403)
#   pkg/backend/udp         its packet proxy is C (cgo); the bundle's binaries are static
#
# A backend registers itself from its package's init(), so these two lines are
# the whole change: the rest of main.go is upstream's. Each line must be there
# exactly once, byte for byte; otherwise (upstream changed its imports) the
# script fails naming the line and leaves the file as it was, so that a new
# flannel release is looked at, not silently built with other backends.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
main=${1:?usage: flannel-main.sh MAIN_GO}
[[ -f $main ]] || die "flannel-main.sh: no $main"
unwanted=(
  $'\t_ "github.com/flannel-io/flannel/pkg/backend/tencentvpc"'
  $'\t_ "github.com/flannel-io/flannel/pkg/backend/udp"'
)
for line in "${unwanted[@]}"; do
  n=$(grep -cxF -- "$line" "$main" || true)
  [[ $n == 1 ]] || die "flannel-main.sh: $main has the line '${line#$'\t'}' $n times, want exactly once (upstream's imports changed: look at them before building)"
done
before=$(wc -l <"$main")
edited=$(mktemp "$main.XXXXXX")
trap 'rm -f "$edited"' EXIT
grep -vxF "${unwanted[@]/#/-e}" "$main" >"$edited"
after=$(wc -l <"$edited")
((after == before - ${#unwanted[@]})) || die "flannel-main.sh: the edit of $main removed $((before - after)) lines, want ${#unwanted[@]}"
chmod --reference="$main" "$edited"
mv "$edited" "$main"
