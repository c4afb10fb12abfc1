package e2e_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// podDriftAndRollback is the pod-mode end-to-end run's own part: a manifest
// deleted by hand is drift the next apply repairs, and only that; a change
// a scheduler cannot start with fails on the first master it reaches, fast
// (a crash loop, not the health timeout), with that master's previous
// manifest back, and the roll stops there — the other master's scheduler is
// not touched and the cluster keeps serving. Undone, the cluster converges.
func podDriftAndRollback(t *testing.T, tb *nspawntest.Testbed, dir string, config k8sWriter) {
	t.Helper()
	mustExec(t, tb, "m1", "rm /etc/kubernetes/manifests/kube-scheduler.yaml")
	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("the repair of a deleted manifest failed: %v %v", res.Failed, res.Skipped)
	}
	sched := resources.ServiceAddr(resources.CompScheduler, "m1")
	if got := changed(p); got != "update "+sched {
		t.Errorf("after m1's scheduler manifest was removed the apply changed %q, want %s only", got, sched)
	}
	if s := p.Step(sched); s == nil || !strings.Contains(reasonsText(s.Reasons), "missing") {
		t.Errorf("the repair's reasons: %+v, want the manifest named missing", s)
	}

	config(k8sDefault, `extra_args = { kube-scheduler = { "no-such-flag" = "1" } }`, "w0")
	started := time.Now()
	_, res = runApply(t, dir, nil)
	if res.OK() {
		t.Fatalf("an apply with a flag the scheduler refuses succeeded")
	}
	var failed []string
	for addr := range res.Failed {
		failed = append(failed, addr)
	}
	t.Logf("the failed change, in %s: %v", time.Since(started).Round(time.Second), res.Failed)
	if len(failed) != 1 || !strings.HasPrefix(failed[0], `service.kube-scheduler[`) {
		t.Fatalf("failed: %v, want one master's scheduler only", failed)
	}
	msg := fmt.Sprint(res.Failed[failed[0]])
	if !strings.Contains(msg, "crash-looping") || !strings.Contains(msg, "previous manifest") {
		t.Errorf("the failure does not say the pod crash-looped and the previous manifest is back: %s", msg)
	}
	for _, h := range []string{"m0", "m1"} {
		if got := mustExec(t, tb, h, "grep -c no-such-flag /etc/kubernetes/manifests/kube-scheduler.yaml; true"); got != "0" {
			t.Errorf("%s's scheduler manifest has the refused flag after the failed roll", h)
		}
		mustExec(t, tb, h, "for i in $(seq 60); do "+adminKubectl+"-n kube-system get pod kube-scheduler-"+h+" -o jsonpath='{.status.containerStatuses[0].ready}' | grep -qx true && exit 0; sleep 2; done; exit 1")
	}
	if got := mustExec(t, tb, "m0", adminKubectl+"get --raw /readyz"); got != "ok" {
		t.Errorf("/readyz after the failed roll: %q", got)
	}
	config(k8sDefault, "", "w0")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("the apply after undoing the change failed: %v", res.Failed)
	}
	if p, _ := runApply(t, dir, nil); p.HasChanges() {
		t.Errorf("after converging: %s", changed(p))
	}
}

// switchWithPolls switches the two masters' control plane to the
// implementation to (systemd units or static pods), with a real API
// request through the load balancer every 200 ms all along: one master at
// a time, no request lost. A switch to pods is undone once first
// (undoneSwitch).
func switchWithPolls(t *testing.T, tb *nspawntest.Testbed, dir, lb string, config k8sWriter, to k8sMode) {
	t.Helper()
	config(k8sDefault, "", "w0")
	if to.pod {
		undoneSwitch(t, tb, dir)
	}
	poll := pollAPI(t, tb, "w0", "/etc/kubernetes/kubelet/kubeconfig", "/api/v1/nodes/w0")
	start := time.Now()
	p, res := runApply(t, dir, nil)
	poll.Stop()
	if !res.OK() {
		t.Fatalf("the switch to pod=%v failed: %v %v", to.pod, res.Failed, res.Skipped)
	}
	t.Logf("switch to pod=%v: %s; load balancer polled %d times, %d failed; roll: %s", to.pod, time.Since(start).Round(time.Second),
		poll.polls.Load(), poll.failures.Load(), strings.Join(rollOrder(p), ", "))
	if poll.failures.Load() > 0 {
		t.Errorf("the API was unreachable through the load balancer during the switch to pod=%v: %v", to.pod, poll.first.Load())
	}
	for _, c := range controlPlane {
		for _, h := range []string{"m0", "m1"} {
			if s := p.Step(resources.ServiceAddr(c, h)); s == nil || s.Action != resources.Update {
				t.Errorf("the switch does not update %s on %s: %v", c, h, s)
			}
		}
	}
	if s := p.Step(resources.ServiceAddr(resources.CompAPIServer, "m1")); s == nil || !slices.Contains(s.WaitsFor, resources.ServiceAddr(resources.CompScheduler, "m0")) {
		t.Errorf("m1's apiserver switches without waiting for m0's control plane: %v", s)
	}
	to.checkControlPlane(t, tb, lb, k8sDefault, "m0", "m1")
}

func reasonsText(rs []resources.Reason) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Detail)
	}
	return strings.Join(out, "; ")
}

// undoneSwitch is a switch from units to static pods whose first pod
// cannot run: m0's containerd loses the pause image (no registry to pull it
// from, so no pod sandbox can start there), and the switch must be undone —
// the unit back and running, the manifest gone, the roll stopped before
// anything else changed, and as soon as the kubelet has failed to make the
// pod's sandbox three times. Then the pause image comes back from the
// bundle.
func undoneSwitch(t *testing.T, tb *nspawntest.Testbed, dir string) {
	t.Helper()
	mustExec(t, tb, "m0", "ctr -n k8s.io images rm $(ctr -n k8s.io images ls -q | grep /pause:) >/dev/null")
	started := time.Now()
	_, res := runApply(t, dir, nil)
	if res.OK() {
		t.Fatalf("a switch whose pod cannot run succeeded")
	}
	apiserver := resources.ServiceAddr(resources.CompAPIServer, "m0")
	msg := fmt.Sprint(res.Failed[apiserver])
	t.Logf("the switch without the pause image, in %s: %v", time.Since(started).Round(time.Second), res.Failed)
	if len(res.Failed) != 1 || !strings.Contains(msg, "the switch is undone: the systemd unit") {
		t.Errorf("failed: %v, want %s only, its switch undone", res.Failed, apiserver)
	}
	// Given up on when the kubelet failed to make the sandbox three times,
	// not after the health check's 3 minutes.
	if !strings.Contains(msg, "no sandbox: the kubelet failed") || strings.Contains(msg, "not healthy after") {
		t.Errorf("the failed switch: %s; want it to say the pod had no sandbox, before the health timeout", msg)
	}
	for _, addr := range res.Applied {
		for _, c := range controlPlane {
			if addr == resources.ServiceAddr(c, "m0") || addr == resources.ServiceAddr(c, "m1") {
				t.Errorf("the failed switch went on to %s", addr)
			}
		}
	}
	if got := mustExec(t, tb, "m0", "for i in $(seq 60); do systemctl -q is-active kube-apiserver && break; sleep 1; done; systemctl is-active kube-apiserver; ls /etc/kubernetes/manifests 2>/dev/null; true"); got != "active" {
		t.Errorf("m0 after the undone switch: %q, want the apiserver unit active and no manifests", got)
	}
	for _, c := range controlPlane {
		if got := mustExec(t, tb, "m1", "systemctl is-active "+c); got != "active" {
			t.Errorf("m1's %s after the undone switch: %q", c, got)
		}
	}
	mustExec(t, tb, "m0", "ctr -n k8s.io images import /var/lib/eggo/images/pause.tar >/dev/null")
}
