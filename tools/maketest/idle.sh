#!/usr/bin/env bash
# idle.sh COMMAND... — runs COMMAND on CPU time nothing else wants, and
# exits with its status.
#
# make test builds the bundles the tests need later (a cold Kubernetes
# compile is ten minutes of both cores) while the first tests run: their
# clusters leave the CPU idle much of the time (waiting on health checks,
# timers, the network), and a compile at normal priority would take it
# from them when they do want it — slower clusters, timeouts. nice alone
# does not do it: with the kernel's autogroups, every session gets an
# equal share whatever its nice. So COMMAND runs in a CPU cgroup of its
# own marked idle (cpu.idle, Linux ≥ 5.15: the whole group is SCHED_IDLE,
# preempted by any other task), or with the smallest weight on an older
# kernel, at nice 19 and idle I/O priority. The cgroup goes when COMMAND
# ends. Without a writable CPU controller, it runs at nice 19 only (its
# session's autogroup is make test's own: lowering that would slow the
# tests too).
set -uo pipefail
(($# > 0)) || { echo "usage: idle.sh COMMAND..." >&2; exit 2; }

name=eggo-idle-$$
parent=
if [[ -f /sys/fs/cgroup/cpu/cgroup.procs ]]; then
  parent=/sys/fs/cgroup/cpu # cgroup v1's CPU hierarchy
elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
  parent=/sys/fs/cgroup # cgroup v2, the CPU controller on for the root's children
fi
cg=
if [[ -n $parent ]] && mkdir "$parent/$name" 2>/dev/null; then
  cg=$parent/$name
  if ! { echo 1 >"$cg/cpu.idle" || echo 2 >"$cg/cpu.shares" || echo 1 >"$cg/cpu.weight"; } 2>/dev/null ||
    ! echo $$ >"$cg/cgroup.procs" 2>/dev/null; then
    rmdir "$cg" 2>/dev/null
    cg=
  fi
fi
nice -n 19 ionice -c 3 "$@"
rc=$?

if [[ -n $cg ]]; then
  echo $$ >"$parent/cgroup.procs" 2>/dev/null
  # A process COMMAND left behind would keep the cgroup: it goes too.
  for i in 1 2 3 4 5; do
    pids=$(cat "$cg/cgroup.procs" 2>/dev/null)
    [[ -z $pids ]] && break
    # shellcheck disable=SC2086 # one pid per word
    kill -9 $pids 2>/dev/null
    sleep 1
  done
  rmdir "$cg" 2>/dev/null || echo "idle.sh: could not remove the cgroup $cg" >&2
fi
exit $rc
