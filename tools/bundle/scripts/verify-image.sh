#!/usr/bin/env bash
# verify-image.sh ARCHIVE NAME BIN_DIR — imports ARCHIVE with `ctr -n k8s.io
# images import` into a throwaway containerd (BIN_DIR's containerd, ctr, runc and
# shim; its own root, state and socket under /tmp; the CRI plugin off), checks
# the image is there under NAME, then runs it once (its entrypoint with no
# arguments: the pause program waits; CoreDNS serves its default whoami zone on
# :53 in the container's own network namespace, which needs root) and stops it
# with SIGTERM: it must have stayed up and exit 0.
#
# Options after BIN_DIR, for images whose program is no such service (the
# conformance test images, conformance-images.sh):
#   -- CMD...     run CMD instead of the image's entrypoint and command
#   --once WANT   the program must finish by itself, exit 0 and print WANT
#   --probe SH    while it runs, `sh -c SH` run in the container (ctr task
#                 exec) must succeed within 20 s, e.g. fetch the page it serves
#   --status N    the exit status SIGTERM must give (agnhost pause exits 2);
#                 N may list several, "0,2"
#
# A failed import or run fails the build. A containerd that cannot start here
# (not root, no overlayfs) is reported and the check skipped: the archive
# itself was still written and tested by ociimage's tests.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
archive=${1:?usage: verify-image.sh ARCHIVE NAME BIN_DIR}
name=${2:?usage: verify-image.sh ARCHIVE NAME BIN_DIR}
bindir=${3:?usage: verify-image.sh ARCHIVE NAME BIN_DIR}
shift 3
once= probe= want_status=0 cmd=()
while (($# > 0)); do
  case $1 in
  --once) once=${2:?--once WANT}; shift 2 ;;
  --probe) probe=${2:?--probe SH}; shift 2 ;;
  --status) want_status=${2:?--status N}; shift 2 ;;
  --) shift; cmd=("$@"); break ;;
  *) die "verify-image: unknown option $1" ;;
  esac
done
id=eggo-verify-$(basename "$archive" .tar)

if [[ $(id -u) != 0 ]]; then
  log "verify-image: skipped: running containerd needs root"
  exit 0
fi
dir=$(mktemp -d /tmp/eggo-verify-image.XXXXXX)
pid=
cleanup() {
  if [[ -n $pid ]]; then
    # A container left running would outlive containerd (its shim is detached).
    "${ctr[@]}" task kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    "${ctr[@]}" task delete "$id" >/dev/null 2>&1 || true
    "${ctr[@]}" containers delete "$id" >/dev/null 2>&1 || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  grep -o " $dir/[^ ]*" /proc/mounts | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf "$dir"
}
ctr=()
trap cleanup EXIT
printf 'version = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n' >"$dir/config.toml"
# containerd finds runc and the shim on its PATH: the bundle's own binaries.
PATH="$bindir:$PATH" "$bindir/containerd" --config "$dir/config.toml" --root "$dir/root" \
  --state "$dir/state" --address "$dir/containerd.sock" >"$dir/containerd.log" 2>&1 &
pid=$!
ctr=("$bindir/ctr" --address "$dir/containerd.sock" -n k8s.io)
for _ in $(seq 50); do
  "${ctr[@]}" version >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
if ! "${ctr[@]}" version >/dev/null 2>&1; then
  log "verify-image: skipped: a throwaway containerd did not start here:"
  tail -5 "$dir/containerd.log" >&2
  exit 0
fi

"${ctr[@]}" images import "$archive" >"$dir/import.log" 2>&1 ||
  { cat "$dir/import.log" >&2; die "verify-image: ctr images import $archive failed"; }
images=$("${ctr[@]}" images ls -q)
grep -qx "$name" <<<"$images" ||
  die "verify-image: $archive imported, but no image named $name (ctr images ls: ${images//$'\n'/ })"
log "verify-image: ctr -n k8s.io images import: $name ok"

if [[ -n $once ]]; then
  status=0
  timeout 120 "${ctr[@]}" run --rm "$name" "$id" "${cmd[@]}" >"$dir/run.log" 2>&1 || status=$?
  [[ $status == 0 ]] || { cat "$dir/run.log" >&2; die "verify-image: $name ${cmd[*]} exited $status, want 0"; }
  grep -qF -- "$once" "$dir/run.log" || { cat "$dir/run.log" >&2; die "verify-image: $name ${cmd[*]} did not print '$once'"; }
  log "verify-image: ctr run $name ${cmd[*]}: exit 0, printed '$once'"
  exit 0
fi

# Run it: the program must stay up, then exit 0 on SIGTERM.
"${ctr[@]}" run --rm "$name" "$id" "${cmd[@]}" >"$dir/run.log" 2>&1 &
run=$!
running=
for _ in $(seq 50); do
  if "${ctr[@]}" task ls 2>/dev/null | grep -q "^$id .*RUNNING"; then running=1; break; fi
  kill -0 "$run" 2>/dev/null || break
  sleep 0.2
done
if [[ -z $running ]]; then
  kill "$run" 2>/dev/null || true
  wait "$run" 2>/dev/null || true
  cat "$dir/run.log" >&2
  die "verify-image: $name did not start under containerd and runc"
fi
if [[ -n $probe ]]; then
  ok=
  for _ in $(seq 40); do
    if "${ctr[@]}" task exec --exec-id probe "$id" sh -c "$probe" >"$dir/probe.log" 2>&1; then ok=1; break; fi
    sleep 0.5
  done
  [[ -n $ok ]] || { cat "$dir/run.log" "$dir/probe.log" >&2; die "verify-image: $name: probe '$probe' failed"; }
  log "verify-image: $name: probe '$probe' ok: $(head -c 200 "$dir/probe.log" | tr '\n' ' ')"
fi
"${ctr[@]}" task kill -s SIGTERM "$id"
status=0
wait "$run" || status=$?
[[ ",$want_status," == *",$status,"* ]] || { cat "$dir/run.log" >&2; die "verify-image: $name exited $status on SIGTERM, want $want_status"; }
log "verify-image: ctr run $name${cmd[*]:+ ${cmd[*]}}: running, exited $status on SIGTERM"
