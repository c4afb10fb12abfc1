package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/eggotest"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/tools/conformance"
)

// etcdPodsConfig writes a cluster of masters that are etcd members and
// workers w0 and w1, the control plane and etcd as static pods, with the
// bundle at packages and more lines for the cluster block.
func etcdPodsConfig(t *testing.T, dir string, tb *nspawntest.Testbed, packages, extra string, masters ...string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `cluster "ep" {
  kubernetes_version  = %q
  packages            = %q
  implementation      = "pod"
  %s
  %s
  network { pod_cidr = "10.244.0.0/16" }
  # The testbed's hosts have no resolver to forward to.
  addons {
    coredns          = true
    coredns_upstream = []
  }
}
%s
`, k8sDefault, packages, extra, testbedRuntime, connectionBlock(tb))
	for _, n := range masters {
		fmt.Fprintf(&b, "node %q {\n  address = %q\n  roles   = [\"master\", \"etcd\"]\n}\n", n, hostAddr(t, tb, n))
	}
	for _, n := range []string{"w0", "w1"} {
		fmt.Fprintf(&b, "node %q {\n  address = %q\n  roles   = [\"worker\"]\n}\n", n, hostAddr(t, tb, n))
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEtcdStaticPodsOnTestbed: with etcd_implementation = "pod" each member
// is a static pod of the bundle's etcd image beside the control plane's; a
// member added later joins the running cluster through the bootstrap
// environment file the image's etcd reads; a no-op restarts nothing; a
// changed etcd flag rolls the members one at a time with the API serving;
// moving etcd back to a unit is refused; destroy leaves nothing. It is
// also make test's conformance smoke of the pod implementation (with
// static-pod etcd): the tests conformance.SmokeFocusEnv names run against
// the cluster of three masters and two workers.
func TestEtcdStaticPodsOnTestbed(t *testing.T) {
	parallel(t)
	bundle := bundleDir(t, k8sDefault)
	smoke, err := conformance.NewSmoke(eggotest.Root(), k8sDefault, bundle, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if smoke != nil {
		bundle = smoke.Bundle
	} else {
		t.Logf("no conformance smoke: %s is not set", conformance.SmokeFocusEnv)
	}
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{N: 5, Names: []string{"m0", "m1", "m2", "w0", "w1"}, Containers: true})
	dir := t.TempDir()
	// A 3 s election timeout: the members share a machine that is busy
	// with other clusters, where etcd's 1 s one lapses by itself, and a
	// leader lost that way fails the requests in flight ("etcdserver:
	// leader changed") whatever the roll does.
	const etcdPods = `etcd_implementation = "pod"`
	const etcdArgs = `"election-timeout" = "3000"`
	config := func(extra string, masters ...string) { etcdPodsConfig(t, dir, tb, bundle, extra, masters...) }
	config(etcdPods+"\n  extra_args = { etcd = { "+etcdArgs+" } }", "m0", "m1")
	start := time.Now()
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("deploy failed: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("deploy of 2 masters with static-pod etcd and 2 workers: %s", time.Since(start).Round(time.Second))

	// m2 joins the running cluster as "existing", from the environment
	// file the image's etcd reads.
	config(etcdPods+"\n  extra_args = { etcd = { "+etcdArgs+" } }", "m0", "m1", "m2")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("adding m2 failed: %v %v", res.Failed, res.Skipped)
	}
	if got := mustExec(t, tb, "m2", "cat /etc/kubernetes/etcd/bootstrap.env"); !strings.Contains(got, "ETCD_INITIAL_CLUSTER_STATE=existing") {
		t.Errorf("m2 joined with:\n%s", got)
	}
	if got := strings.Join(etcdMembers(t, tb), " "); got != "m0 m1 m2" {
		t.Errorf("etcd members:\n%s", got)
	}
	for _, h := range []string{"m0", "m1", "m2"} {
		if got := mustExec(t, tb, h, "ls -A /etc/kubernetes/manifests; systemctl cat etcd.service >/dev/null 2>&1 && echo unit || echo no-unit"); got != "etcd.yaml\nkube-apiserver.yaml\nkube-controller-manager.yaml\nkube-scheduler.yaml\nno-unit" {
			t.Errorf("%s: %q, want four manifests and no etcd unit", h, got)
		}
		// The kubelet makes the mirror pod at its next sync of the pod once
		// the API serves: up to a minute and more after the apply.
		phase := mustExec(t, tb, "m0", "for i in $(seq 90); do p=$("+adminKubectl+"-n kube-system get pod etcd-"+h+" -o jsonpath='{.status.phase} {.spec.containers[0].image}' 2>/dev/null); [ \"${p%% *}\" = Running ] && break; sleep 2; done; echo \"$p\"")
		if phase != "Running "+k8sImages.Etcd {
			t.Errorf("pod etcd-%s: %q, want Running of the bundle's image", h, phase)
		}
	}

	// The conformance tests judge the cluster; then a no-op restarts
	// nothing (the tests left no drift).
	if smoke != nil {
		start = time.Now()
		sum, err := smoke.Run(context.Background(), filepath.Join(dir, "ep.kubeconfig"))
		if err != nil {
			t.Error(err)
		}
		t.Logf("conformance smoke (pod implementation, static-pod etcd), %s: %s", time.Since(start).Round(time.Second), sum)
	}
	before := mustExec(t, tb, "m0", "ctr -n k8s.io tasks ls -q | sort")
	if p, _ := runApply(t, dir, nil); p.HasChanges() {
		t.Errorf("the second apply: %s", changed(p))
	}
	if after := mustExec(t, tb, "m0", "ctr -n k8s.io tasks ls -q | sort"); after != before {
		t.Errorf("a no-op apply changed the containers on m0")
	}

	// A changed flag: one member at a time, the API serving throughout.
	config(etcdPods+"\n  extra_args = { etcd = { "+etcdArgs+", \"heartbeat-interval\" = \"150\" } }", "m0", "m1", "m2")
	poll := pollAPI(t, tb, "m0", "/etc/kubernetes/admin.conf", "/api/v1/namespaces/default")
	p, res := runApply(t, dir, nil)
	poll.Stop()
	if !res.OK() {
		t.Fatalf("the etcd flag change failed: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("etcd roll: %s; API polled %d times, %d failed", strings.Join(rollOrder(p), ", "), poll.polls.Load(), poll.failures.Load())
	if poll.failures.Load() > 0 {
		t.Errorf("the API failed during etcd's roll: %v", poll.first.Load())
	}
	if s := p.Step("etcd_member.m1"); s == nil || !slices.Contains(s.WaitsFor, "etcd_member.m0") {
		t.Errorf("etcd_member.m1 does not wait for m0's: %v", s)
	}
	for _, h := range []string{"m0", "m1", "m2"} {
		if got := mustExec(t, tb, h, "grep -c heartbeat-interval=150 /etc/kubernetes/manifests/etcd.yaml"); got != "1" {
			t.Errorf("%s's etcd manifest lacks the flag", h)
		}
	}

	// Back to a unit: refused, with the reason.
	config("extra_args = { etcd = { "+etcdArgs+" } }", "m0", "m1", "m2")
	_, err = planOnce(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "etcd_implementation cannot change") {
		t.Errorf("moving etcd to a unit: %v, want it refused", err)
	}

	config(etcdPods+"\n  extra_args = { etcd = { "+etcdArgs+" } }", "m0", "m1", "m2")
	if _, res := runApply(t, dir, func(r *runOpts) { r.req.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
	for _, h := range []string{"m0", "m1", "m2", "w0", "w1"} {
		if got := mustExec(t, tb, h, "ls -d /etc/kubernetes/manifests /var/lib/etcd 2>/dev/null | wc -l; pgrep -c -x etcd; true"); got != "0\n0" {
			t.Errorf("%s after destroy: %q, want no manifests, no etcd data, no etcd", h, got)
		}
	}
}
