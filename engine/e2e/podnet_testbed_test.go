package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// The runtime settings the testbed's hosts need: containerd's for hosts
// without CAP_SYS_RESOURCE, a cgroup root per Node, as every host shares
// this machine's cgroup hierarchy, and eviction thresholds of what is left
// of the disk every host shares with this machine (the kubelet's defaults
// are shares of its whole capacity). legacyRuntime is what an eggo
// from before cgroup_root_per_node reads (the upgrade tests' old eggo).
const (
	testbedRuntime = "runtime {\n    restrict_oom_score_adj = true\n    cgroup_root_per_node   = true\n    eviction_hard          = { \"memory.available\" = \"100Mi\", \"nodefs.available\" = \"1Gi\", \"imagefs.available\" = \"1Gi\", \"nodefs.inodesFree\" = \"5%\" }\n    image_gc_high_percent  = 100\n  }"
	legacyRuntime  = "runtime { restrict_oom_score_adj = true }"
	// oldEggoKubelet gives the old eggo's kubelets the eviction thresholds
	// it has no runtime setting for: its default imagefs.available<15%
	// is of this machine's whole disk (CI10 evicted the pods with 39 GB
	// free); and, as it deploys 1.36, the cgroup v1 consent today's eggo
	// writes on such a host (resources/kube/cgroup_v1.go).
	oldEggoKubelet = `kubelet = { "eviction-hard" = "memory.available<100Mi,nodefs.available<1Gi,imagefs.available<1Gi,nodefs.inodesFree<5%", "fail-cgroupv1" = "false" }`
)

// podnetConfig writes a master and the given workers (in that order).
func podnetConfig(t *testing.T, dir string, tb *nspawntest.Testbed, workers ...string) {
	t.Helper()
	podnetConfigWith(t, dir, tb, k8sDefault, testbedRuntime, "", workers...)
}

// podnetConfigWith is podnetConfig at a version, with the runtime block
// given and more of the cluster block's attributes (extra, one a line).
func podnetConfigWith(t *testing.T, dir string, tb *nspawntest.Testbed, version, runtime, extra string, workers ...string) {
	t.Helper()
	podnetConfigAt(t, dir, tb, version, bundleDir(t, version), runtime, extra, workers...)
}

// podnetConfigAt is podnetConfigWith with the bundle at packages.
func podnetConfigAt(t *testing.T, dir string, tb *nspawntest.Testbed, version, packages, runtime, extra string, workers ...string) {
	t.Helper()
	h := tb.Hosts[0]
	var b strings.Builder
	fmt.Fprintf(&b, `cluster "pn" {
  kubernetes_version = %q
  packages           = %q
  %s
  %s
  network { pod_cidr = "10.244.0.0/16" }
  addons { coredns = false }
}
connection {
  user             = %q
  private_key_file = %q
  known_hosts_file = %q
}
`, version, packages, extra, runtime, h.User, h.KeyFile, h.KnownHostsFile)
	for _, n := range append([]string{"m0"}, workers...) {
		role := "worker"
		if n == "m0" {
			role = `master", "etcd`
		}
		fmt.Fprintf(&b, "node %q {\n  address = %q\n  roles   = [\"%s\"]\n}\n", n, hostAddr(t, tb, n), role)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hostAddr(t *testing.T, tb *nspawntest.Testbed, name string) string {
	t.Helper()
	h, err := tb.Host(name)
	if err != nil {
		t.Fatal(err)
	}
	return h.Address
}

// recordedPodSubnets reads every worker's pod subnet from the state.
func recordedPodSubnets(t *testing.T, dir string) map[string]string {
	t.Helper()
	st, err := readStateFile(filepath.Join(dir, "eggo.state"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range st.Resources {
		if s, ok := r.Attributes[kube.AttrPodSubnet].(string); ok && r.Kind == "k8s_node" {
			out[r.Node] = s
		}
	}
	return out
}

// tcpFrom opens a TCP connection from a host, or from inside its pod with
// address pod, and returns bash's answer: "" when it connected,
// "Connection refused" when a closed port answered (so the address was
// reached).
func tcpFrom(t *testing.T, tb *nspawntest.Testbed, host, pod, ip string, port int) string {
	t.Helper()
	cmd := fmt.Sprintf(`timeout 5 bash -c 'exec 3<>/dev/tcp/%s/%d' 2>&1; true`, ip, port)
	if pod != "" {
		return inPod(t, tb, host, pod, cmd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := tb.Exec(ctx, host, cmd)
	return strings.TrimSpace(out)
}

// TestPodNetworkOnTestbed: flannel on two workers in two subnets (a router
// between them). Pods reach each other across the subnets with their own
// addresses (only traffic leaving pod_cidr is masqueraded); each Node's
// podCIDR is the subnet the state records; a stopped flanneld and an edited
// configuration show in the plan, which repairs only them; removing a
// worker changes nothing of the other's; it comes back with its old
// subnet; destroy leaves no flannel device, rule or lease.
func TestPodNetworkOnTestbed(t *testing.T) {
	parallel(t)
	bundleDir(t, k8sDefault)
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{N: 3, Names: []string{"m0", "w0", "w1"}, Containers: true,
		Networks: 2, NetworkOf: map[string]int{"m0": 0, "w0": 0, "w1": 1}})
	if h0, h1 := tb.Hosts[1], tb.Hosts[2]; h0.Subnet == h1.Subnet {
		t.Fatalf("w0 (%s) and w1 (%s) share a subnet", h0.Subnet, h1.Subnet)
	}
	dir := t.TempDir()
	podnetConfig(t, dir, tb, "w0", "w1")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("deploy failed: %v %v", res.Failed, res.Skipped)
	}
	want := map[string]string{"m0": "10.244.0.0/24", "w0": "10.244.1.0/24", "w1": "10.244.2.0/24"} // the master is a Node too
	if got := recordedPodSubnets(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pod subnets recorded: %v, want %v", got, want)
	}
	if got := mustExec(t, tb, "m0", adminKubectl+"get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.spec.podCIDR} {end}'"); got != "m0=10.244.0.0/24 w0=10.244.1.0/24 w1=10.244.2.0/24" {
		t.Errorf("Nodes' podCIDRs: %q", got)
	}
	if r := mustExec(t, tb, "w0", "ip route show 10.244.2.0/24"); !strings.Contains(r, "dev "+kube.FlannelLink) {
		t.Errorf("w0's route to w1's pods: %q, want it through %s", r, kube.FlannelLink)
	}
	podsAcrossSubnets(t, tb)
	mastersAreNodes(t, tb, dir, []string{"w0", "w1"}, func(extra string) { podnetConfigWith(t, dir, tb, k8sDefault, testbedRuntime, extra, "w0", "w1") })

	// Drift: flanneld stopped on w1, its network configuration edited on
	// w0. The plan names both, nothing else; the apply repairs them.
	mustExec(t, tb, "w1", "systemctl stop flanneld")
	mustExec(t, tb, "w0", "echo '{}' > /etc/kubernetes/flanneld/net-conf.json")
	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("repair failed: %v %v", res.Failed, res.Skipped)
	}
	for _, s := range p.Steps {
		isFlannel := s.Addr == resources.ServiceAddr(resources.CompFlannel, "w0") || s.Addr == resources.ServiceAddr(resources.CompFlannel, "w1")
		if isFlannel != (s.Action == resources.Update) {
			t.Errorf("after drift, %s: %s %v", s.Addr, s.Action, s.Reasons)
		}
	}
	if st := mustExec(t, tb, "w1", "systemctl is-active flanneld; true"); st != "active" {
		t.Errorf("flanneld on w1 after the repair: %s", st)
	}
	podsAcrossSubnets(t, tb)

	// A route deleted by hand, which flannel leaves deleted until it
	// restarts: the refresh sees it, and restarting w0's flanneld (only
	// it) brings it back.
	mustExec(t, tb, "w0", "ip route del 10.244.2.0/24 dev "+kube.FlannelLink)
	p, res = runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("repairing the route failed: %v %v", res.Failed, res.Skipped)
	}
	for _, s := range p.Steps {
		isW0 := s.Addr == resources.ServiceAddr(resources.CompFlannel, "w0")
		if isW0 != (s.Action == resources.Update) || isW0 && !strings.Contains(fmt.Sprint(s.Reasons), "routes through "+kube.FlannelLink) {
			t.Errorf("after a route was deleted, %s: %s %v", s.Addr, s.Action, s.Reasons)
		}
	}
	if r := mustExec(t, tb, "w0", "ip route show 10.244.2.0/24"); !strings.Contains(r, "dev "+kube.FlannelLink) {
		t.Errorf("w0's route to w1's pods after the repair: %q", r)
	}

	// w0 goes: nothing of w1's changes, w1 forgets w0's pods, w0 is left
	// without flannel.
	flannelRun := func() string { return mustExec(t, tb, "w1", "systemctl show -p InvocationID --value flanneld") }
	before := flannelRun()
	podnetConfig(t, dir, tb, "w1")
	p, res = runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("removing w0 failed: %v %v", res.Failed, res.Skipped)
	}
	onlyNodeChanges(t, "removing w0", p, "w0")
	if after := flannelRun(); after != before {
		t.Errorf("removing w0 restarted w1's flanneld (%s → %s)", before, after)
	}
	if r := mustExec(t, tb, "w1", "ip route show 10.244.1.0/24"); r != "" {
		t.Errorf("w1 kept a route to removed w0's pods: %q", r)
	}
	if left := flannelLeft(t, tb, "w0"); left != "" {
		t.Errorf("w0 removed, flannel left there: %q", left)
	}

	// w0 comes back, declared last: its old subnet, the lowest free.
	podnetConfig(t, dir, tb, "w1", "w0")
	p, res = runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("adding w0 back failed: %v %v", res.Failed, res.Skipped)
	}
	onlyNodeChanges(t, "adding w0 back", p, "w0")
	if got := recordedPodSubnets(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after adding w0 back, pod subnets recorded: %v", got)
	}

	if _, res := runApply(t, dir, func(r *runOpts) { r.req.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
	for _, h := range []string{"m0", "w0", "w1"} {
		if left := flannelLeft(t, tb, h); left != "" {
			t.Errorf("destroy left flannel on %s: %q", h, left)
		}
	}
}

// podsAcrossSubnets: a pod on w0 and one on w1 reach each other with their
// own addresses; a pod reaching a node's address is masqueraded to its own
// node's address.
func podsAcrossSubnets(t *testing.T, tb *nspawntest.Testbed) {
	t.Helper()
	defer mustExec(t, tb, "m0", adminKubectl+"delete pod p0 p1 --wait=true --timeout=60s")
	p0, p1 := runPod(t, tb, "p0", "w0", k8sImages.Pause), runPod(t, tb, "p1", "w1", k8sImages.Pause)
	if !strings.HasPrefix(p0, "10.244.1.") || !strings.HasPrefix(p1, "10.244.2.") {
		t.Fatalf("pod addresses %s (w0) %s (w1) outside their nodes' subnets", p0, p1)
	}
	// w1 counts what reaches it from p0's own address (a rule with no target).
	counter := fmt.Sprintf("-s %s -d %s -p tcp --dport 80 -m comment --comment pod-to-pod", p0, p1)
	mustExec(t, tb, "w1", "iptables -I FORWARD 1 "+counter)
	// A pause pod listens nowhere: its kernel's reset proves it was reached.
	for _, from := range []struct{ host, pod string }{{"w0", p0}, {"w0", ""}} {
		if got := tcpFrom(t, tb, from.host, from.pod, p1, 80); !strings.Contains(got, "Connection refused") {
			t.Errorf("%s (pod %q) → pod %s on w1: %q, want the pod's reset", from.host, from.pod, p1, got)
		}
	}
	if got := tcpFrom(t, tb, "w1", p1, p0, 80); !strings.Contains(got, "Connection refused") {
		t.Errorf("pod on w1 → pod %s on w0: %q", p0, got)
	}
	if n := mustExec(t, tb, "w1", "iptables -L FORWARD -v -n -x | awk '/pod-to-pod/{print $1}'; iptables -D FORWARD "+counter); n == "" || n == "0" {
		t.Errorf("no packet reached w1 from %s to %s (counted %q): the pod's address was not kept", p0, p1, n)
	}
	w1 := hostAddr(t, tb, "w1")
	if got := tcpFrom(t, tb, "w0", p0, w1, 22); got != "" {
		t.Errorf("pod on w0 → w1's sshd: %q", got)
	}
	if ct := mustExec(t, tb, "w1", "conntrack -L 2>&1; true"); !strings.Contains(ct, fmt.Sprintf("src=%s dst=%s ", hostAddr(t, tb, "w0"), w1)) {
		t.Errorf("the pod's connection to w1's address was not masqueraded to w0's:\n%s", ct)
	}
}
