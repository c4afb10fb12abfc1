package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// waitsOn says the plan's step from runs only after to: to is among the
// steps it waits for, or theirs.
func waitsOn(p *engine.Plan, from, to string) bool {
	seen := map[string]bool{}
	next := []string{from}
	for len(next) > 0 {
		s := p.Step(next[0])
		next = next[1:]
		if s == nil {
			continue
		}
		for _, w := range s.WaitsFor {
			if w == to {
				return true
			}
			if !seen[w] {
				seen[w] = true
				next = append(next, w)
			}
		}
	}
	return false
}

// planError is what planning dir says, or nil.
func planError(dir string, mutate func(*runOpts)) error {
	_, err := planOnce(dir, mutate)
	return err
}

// etcdMembers lists the etcd cluster's members (name per line) as m0 sees
// them, after checking every one of them is healthy.
func etcdMembers(t *testing.T, tb *nspawntest.Testbed) []string {
	t.Helper()
	ctl := "ETCDCTL_API=3 etcdctl --cacert /etc/kubernetes/etcd/ca.crt --cert /etc/kubernetes/etcd/server.crt --key /etc/kubernetes/etcd/server.key --endpoints https://127.0.0.1:2379"
	out := mustExec(t, tb, "m0", ctl+" member list -w simple | awk -F', ' '{print $3}' | sort")
	health := mustExec(t, tb, "m0", ctl+" endpoint health --cluster 2>&1 || true")
	names := strings.Fields(out)
	if got := strings.Count(health, "is healthy"); got != len(names) {
		t.Errorf("%d of the %d etcd members %v are healthy:\n%s", got, len(names), names, health)
	}
	return names
}

// clusterFaults is issue 3's faults, on the pods run's cluster after its
// upgrade (lb, m0, m1, e0 and w0 at k8sNext, the control plane in units):
// a bundle missing a file, an etcd member down while another (e1) joins, a
// master removed, and a dead worker removed with -force. (They had a
// cluster of their own, of the same roles, until issue 26 merged it into
// this one.) before holds the hosts' trees from before the deploy. It
// leaves lb, m0, e0, e1 and w1 in the cluster, and w0 out of it with its
// files as they were when it was cut off.
func clusterFaults(t *testing.T, tb *nspawntest.Testbed, dir string, before map[string]string) {
	t.Helper()
	bundle := bundleDir(t, k8sNext)
	lb := addresses(tb)["lb"]
	// A dead host is given up on after two 3 s attempts.
	write := func(packages string, nodes ...string) {
		k8sConfigOf(t, dir, tb, k8sCluster{version: k8sNext, packages: packages,
			connection: []string{`timeout = "3s"`, "retries = 1"}, nodes: nodes})
	}
	if got := strings.Join(etcdMembers(t, tb), " "); got != "e0 m0 m1" {
		t.Fatalf("etcd members before the faults: %s", got)
	}
	statePath := filepath.Join(dir, "eggo.state")

	// A bundle without kubelet: refused at plan time, naming the file, the
	// node and its definition; the state is untouched.
	broken := filepath.Join(t.TempDir(), "bundle")
	if out, err := exec.Command("cp", "-al", bundle, broken).CombinedOutput(); err != nil {
		t.Fatalf("copying the bundle: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(broken, "amd64/usr/local/bin/kubelet")); err != nil {
		t.Fatal(err)
	}
	write(broken, "lb", "m0", "m1", "e0", "w0")
	stateBefore, _ := os.ReadFile(statePath)
	err := planError(dir, nil)
	for _, want := range []string{"main.hcl:", `"m0"`, "/usr/local/bin/kubelet", "missing"} { // m0: the first Node (masters run kubelet too)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plan with a bundle lacking kubelet: %v; want it to mention %s", err, want)
		}
	}
	if stateAfter, _ := os.ReadFile(statePath); string(stateAfter) != string(stateBefore) {
		t.Error("a refused plan changed the state")
	}

	// An etcd member down while another joins: the plan restarts the
	// stopped member first, then adds the new one (etcd would refuse the
	// add with one of three members down).
	// w1, deleted earlier in the run, joins again beside it: the worker
	// that is left when w0 dies (CoreDNS needs one).
	mustExec(t, tb, "e0", "systemctl stop etcd")
	write(bundle, "lb", "m0", "m1", "e0", "e1", "w0", "w1")
	start := time.Now()
	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("join of e1 with e0 down: %v %v", res.Failed, res.Skipped)
	}
	if s := p.Step("etcd_member.e0"); s == nil || s.Action != resources.Update {
		t.Errorf("the stopped member e0 is not repaired: %+v", s)
	}
	// Through the members' roll: the join waits for its last member, and
	// the upgrade before left that roll in the order e0, m0, m1.
	if s := p.Step("etcd_member.e1"); s == nil || s.Action != resources.Create || !waitsOn(p, "etcd_member.e1", "etcd_member.e0") {
		t.Errorf("the join of e1 does not wait for e0's repair: %+v", s)
	}
	t.Logf("join of e1 with e0 stopped: %s (e0 repaired first)", time.Since(start).Round(100*time.Millisecond))
	if got := strings.Join(etcdMembers(t, tb), " "); got != "e0 e1 m0 m1" {
		t.Errorf("etcd members after the join: %s", got)
	}

	// A master removed: its etcd member leaves the cluster, its control
	// plane goes, the host is as before, the API still serves.
	write(bundle, "lb", "m0", "e0", "e1", "w0", "w1")
	start = time.Now()
	if _, res = runApply(t, dir, nil); !res.OK() {
		t.Fatalf("removing master m1: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("removal of master m1: %s", time.Since(start).Round(100*time.Millisecond))
	if got := strings.Join(etcdMembers(t, tb), " "); got != "e0 e1 m0" {
		t.Errorf("etcd members after m1 left: %s", got)
	}
	if got := hostTree(t, tb, "m1"); got != before["m1"] {
		t.Errorf("m1 not as before after its removal:\n%s", nspawntest.TreeDiff(before["m1"], got))
	}
	if got := kubectl(t, tb, lb, "get --raw /readyz"); got != "ok" {
		t.Errorf("/readyz after m1 left: %q", got)
	}
	if st := kubectl(t, tb, lb, `get node w0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'`); st != "True" {
		t.Errorf("w0 Ready = %q after m1 left", st)
	}

	// A dead worker removed: without -force the plan names it; with it,
	// the Node goes from the cluster and w0 from the state, untouched.
	if err := tb.Cut("w0"); err != nil {
		t.Fatal(err)
	}
	defer tb.Restore("w0")
	write(bundle, "lb", "m0", "e0", "e1", "w1")
	err = planError(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "w0") || !strings.Contains(err.Error(), "-force") {
		t.Errorf("plan with w0 unreachable: %v; want an error naming w0 and -force", err)
	}
	t.Logf("plan with w0 unreachable: %v", err)
	start = time.Now()
	if _, res = runApply(t, dir, func(r *runOpts) { r.plan.Force = true }); !res.OK() {
		t.Fatalf("removing dead w0 with -force: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("removal of dead w0 with -force: %s", time.Since(start).Round(100*time.Millisecond))
	if got := kubectl(t, tb, lb, "get node w0 --ignore-not-found -o name"); got != "" {
		t.Errorf("node w0 still registered after -force: %q", got)
	}
	st, err := readStateFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		if r.Node == "w0" || strings.HasSuffix(r.Address, ".w0") || strings.Contains(r.Address, `"w0"`) {
			t.Errorf("%s is still in the state after w0 was removed with -force", r.Address)
		}
	}
	if err := tb.Restore("w0"); err != nil {
		t.Fatal(err)
	}
}
