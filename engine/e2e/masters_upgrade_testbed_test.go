package e2e_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// mastersNotNodesRelease is the last commit of eggo whose masters were not
// Nodes (no containerd, kubelet, kube-proxy or flanneld on them): the
// upgrade test builds it to make a cluster the way users' clusters were
// made until then.
const mastersNotNodesRelease = "47c81cb"

// TestMastersBecomeNodesOnTestbed: a cluster made by the eggo whose
// masters were not Nodes gains them with one apply of today's eggo. The
// plan creates the master's Node components and its Node, updates its
// host's files, and changes nothing else; the control plane is not
// restarted and the API answers throughout; afterwards the master is a
// Ready Node with the control-plane label and taint, and a second apply
// has nothing to do.
func TestMastersBecomeNodesOnTestbed(t *testing.T) {
	parallel(t)
	bundleDir(t, k8sOldEggo)
	old := buildEggoAt(t, mastersNotNodesRelease)
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{N: 2, Names: []string{"m0", "w0"}, Containers: true})
	dir := t.TempDir()
	// The apiserver flag today's eggo has and that release lacked, given
	// to the old one as an extra argument: its unit is then today's, and
	// this upgrade is the masters' becoming Nodes only (a new default flag
	// restarts the apiservers, which one master cannot do without a gap).
	podnetConfigWith(t, dir, tb, k8sOldEggo, legacyRuntime, `extra_args = {
    kube-apiserver = { "shutdown-watch-termination-grace-period" = "5s" }
    `+oldEggoKubelet+`
  }`, "w0")
	cmd := exec.Command(old, "-chdir="+dir, "apply", "-auto-approve")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply of eggo %s: %v\n%s", mastersNotNodesRelease, err, out)
	}
	if got := mustExec(t, tb, "m0", adminKubectl+"get nodes -o name"); got != "node/w0" {
		t.Fatalf("before the upgrade, the Nodes: %q, want node/w0 only", got)
	}
	units := unitInvocations(t, tb, "m0", "w0")

	// The API, asked on the master while the apply runs.
	poll := pollAPI(t, tb, "m0", "/etc/kubernetes/admin.conf", "/readyz")
	p, res := runApply(t, dir, nil)
	poll.Stop()
	if !res.OK() {
		t.Fatalf("the upgrade failed: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("masters become Nodes: %s; API polled %d times, %d failed", changed(p), poll.polls.Load(), poll.failures.Load())
	if poll.failures.Load() > 0 {
		t.Errorf("the API did not answer during the upgrade: %v", poll.first.Load())
	}
	for _, s := range p.Steps {
		if s.Action == resources.NoOp {
			continue
		}
		ok := s.Node == "m0" && (s.Action == resources.Create || s.Addr == "host.m0")
		// The old eggo knew no control-plane or etcd images: from today's
		// bundle it sent them to every node, and today's eggo takes them
		// off the worker (only a pod-implementation master or etcd member
		// gets them).
		if s.Addr == "host.w0" && onlyRemovesImages(s.Reasons) {
			ok = true
		}
		if !ok {
			t.Errorf("the upgrade plans %s %s (%v): want only the master's new Node components, its Node and its host's files", s.Action, s.Addr, s.Reasons)
		}
	}
	for _, want := range []string{resources.ServiceAddr(resources.CompKubelet, "m0"), resources.ServiceAddr(resources.CompFlannel, "m0"), "k8s_node.m0"} {
		if s := p.Step(want); s == nil || s.Action != resources.Create {
			t.Errorf("the upgrade does not create %s: %+v", want, s)
		}
	}
	after := unitInvocations(t, tb, "m0", "w0")
	for unit, id := range units {
		if after[unit] != id {
			t.Errorf("%s restarted by the upgrade", unit)
		}
	}
	if got := mustExec(t, tb, "m0", adminKubectl+`get node m0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status} {.spec.taints[*].key}'`); got != "True "+resources.ControlPlaneTaint {
		t.Errorf("m0 after the upgrade: %q, want a Ready Node with the control-plane taint", got)
	}
	if p, _ := runApply(t, dir, nil); p.HasChanges() {
		t.Errorf("the apply after the upgrade: %s", changed(p))
	}
	if _, res := runApply(t, dir, func(r *runOpts) { r.req.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
}

// onlyRemovesImages says a host's update removes the bundle's control-plane
// or etcd images and changes nothing else.
func onlyRemovesImages(rs []resources.Reason) bool {
	for _, r := range rs {
		_, files, ok := strings.Cut(r.Detail, "files (")
		if !ok {
			return false
		}
		for _, f := range strings.Split(strings.TrimSuffix(files, ")"), ", ") {
			if !strings.HasPrefix(f, "- /"+resources.ControlPlaneImageDir) && !strings.HasPrefix(f, "- /"+resources.EtcdImageDir) {
				return false
			}
		}
	}
	return len(rs) > 0
}
