#!/usr/bin/env bash
# test.sh — what `make test` runs (the Makefile passes RACE_ONLY,
# CONFORMANCE_SMOKE, INOTIFY_INSTANCES, E2E_CLUSTERS and MAKE), in
# an order made for a machine with two cores, where a cluster test is
# bound by CPU and E2E_CLUSTERS clusters at a time is the most it holds:
#
#  1. units: the packages without clusters (but those the race step runs),
#     alone — their clocks (a Lease renewed every 0.7 s, a clock-skew
#     reading) must not wait on the clusters' load;
#  2. the engine's end-to-end tests (engine/e2e, the longest first —
#     slots_test.go says why; TestEtcdStaticPodsOnTestbed runs the
#     conformance smoke of the pod implementation) beside one chain: the
#     GitOps end-to-end test (controller/e2e: a management cluster and a
#     workload cluster; then the same management cluster as Cluster API's,
#     clusterctl init from make capi-parts and a Cluster of Machines on the
#     hosts the workload cluster gave back, with the binary implementation's
#     conformance smoke), the bundle tools' tests and the capi/ module's
#     tests (its controllers against real API servers, beside Cluster API's
#     own core manager) — a chain that holds one of the E2E_CLUSTERS slots
#     to its end, then gives it to the engine's tests;
#  3. the race step (the unit tests of the engine, the graph and the
#     providers, and the engine's testbed tests that boot no Kubernetes:
#     RACE_ONLY, run once, here) and the fuzz runs, after the clusters: under
#     their load they took 493 s and 334 s in the run of cdc68db (about 100 s
#     and 60 s alone), and made the chain end last;
#  4. resources/hookrun, alone and last: it measures a hook's time limits on
#     real hosts (SIGTERM, then SIGKILL after the grace), which the clusters'
#     load would stretch.
#
# Each step says how long it took; the end-to-end tests run with -v, so the
# log has each test's time and the times of its phases (their output is
# short). Only the testbeds this run made are torn down at the end
# (EGGO_TESTBED_RUN), so a demo left running survives.
set -uo pipefail
: "${RACE_ONLY:?}" "${CONFORMANCE_SMOKE:?}" "${INOTIFY_INSTANCES:?}" "${E2E_CLUSTERS:?}"
MAKE=${MAKE:-make}
started=$SECONDS

# step NAME COMMAND...: runs COMMAND and says how it went and how long it took.
step() {
  local name=$1 begun=$SECONDS rc
  shift
  "$@"
  rc=$?
  printf 'make test: %s %s in %d s\n' "$name" "$( ((rc == 0)) && echo passed || echo FAILED)" $((SECONDS - begun)) >&2
  return $rc
}

# A systemd container takes ~15 inotify instances, all root's; Debian's
# limit of 128 fits one cluster. Raised for the run, put back after it.
inotify=$(sysctl -n fs.inotify.max_user_instances)
((inotify >= INOTIFY_INSTANCES)) || sysctl -q -w fs.inotify.max_user_instances="$INOTIFY_INSTANCES"
export EGGO_TESTBED_RUN=/run/eggo-testbed-test-$$
# A file here is a cluster slot held outside engine/e2e (slots_test.go).
export EGGO_E2E_SLOTS_HELD=/run/eggo-e2e-slots-$$
mkdir -p "$EGGO_E2E_SLOTS_HELD"
trap 'go run ./tools/testbed down -root "$EGGO_TESTBED_RUN" >/dev/null 2>&1 || true; rm -rf "$EGGO_E2E_SLOTS_HELD"; sysctl -q -w fs.inotify.max_user_instances="$inotify"' EXIT

# The race step runs these packages' tests, under the race detector: the
# units step leaves them to it (their plain run was the same tests again).
race_pkgs=(./engine/... ./graph/... ./providers/...)
units=$(comm -23 <(go list ./... | sort) <(go list "${race_pkgs[@]}" | sort) | grep -v -e '/resources/hookrun$' -e '/e2e$')
# shellcheck disable=SC2086 # one package per word
step units go test -count=1 -timeout 20m $units || exit 1
step conformance-images "$MAKE" --no-print-directory conformance-images >/dev/null || exit 1
export EGGO_E2E_CONFORMANCE_FOCUS=$CONFORMANCE_SMOKE EGGO_E2E_CLUSTERS=$E2E_CLUSTERS

# The chain holds its slot to its end: given back after the GitOps test
# (CI8), what followed ran beside three clusters (the race step: 802 s,
# not 159) and static-pod etcd's roll lost a polled request to "leader
# changed".
chain() {
  local rc
  touch "$EGGO_E2E_SLOTS_HELD/chain"
  step gitops-e2e go test -count=1 -v -timeout 75m ./controller/e2e/ &&
    step bundle-test "$MAKE" --no-print-directory bundle-test &&
    # The Cluster API providers' module (capi/: its own go.mod, so ./...
    # does not reach it): its tests, and its CRDs, roles and deep copies
    # checked fresh.
    step capi "$MAKE" --no-print-directory -C capi test
  rc=$?
  rm -f "$EGGO_E2E_SLOTS_HELD/chain"
  return $rc
}
chain &
chain_pid=$!
# go test's -parallel only has to let every cluster test reach its slot.
step engine-e2e go test -count=1 -v -timeout 60m -parallel 16 -skip "$RACE_ONLY" ./engine/e2e/
engine=$?
wait "$chain_pid"
chain=$?
((engine == 0 && chain == 0)) || exit 1

step race env CGO_ENABLED=1 go test -count=1 -race -timeout 20m -skip 'TestKubernetes|TestPodNetwork|TestOldEggo|TestEtcdStaticPods' \
  "${race_pkgs[@]}" || exit 1
step fuzz "$MAKE" --no-print-directory fuzz FUZZTIME=20000x FUZZTIME_NESTING=1000x || exit 1
step hookrun go test -count=1 -timeout 15m ./resources/hookrun/ || exit 1
echo "make test: everything passed in $((SECONDS - started)) s" >&2
