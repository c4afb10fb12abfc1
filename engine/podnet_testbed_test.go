package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/testbed"
	"github.com/eggo-project/eggo/resources/kube"
)

// podnetConfig writes a master and the given workers (in that order).
func podnetConfig(t *testing.T, dir string, tb *testbed.Testbed, workers ...string) {
	t.Helper()
	h := tb.Hosts[0]
	var b strings.Builder
	fmt.Fprintf(&b, `cluster "pn" {
  kubernetes_version = %q
  packages           = %q
  runtime { restrict_oom_score_adj = true }
  network { pod_cidr = "10.244.0.0/16" }
  addons { coredns = false }
}
connection {
  user             = %q
  private_key_file = %q
  known_hosts_file = %q
}
`, k8sTo, bundleDir(t, k8sTo), h.User, h.KeyFile, h.KnownHostsFile)
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

func hostAddr(t *testing.T, tb *testbed.Testbed, name string) string {
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
		if s, ok := r.Attributes[kube.AttrPodSubnet].(string); ok {
			out[r.Node] = s
		}
	}
	return out
}

// podIP starts a pause pod on a node and waits for its address.
func podIP(t *testing.T, tb *testbed.Testbed, name, node string) string {
	t.Helper()
	k := "kubectl --kubeconfig /etc/kubernetes/admin.conf "
	mustExec(t, tb, "m0", k+"run "+name+" --image="+kube.PauseImage+` --image-pull-policy=Never --restart=Never --overrides='{"spec":{"nodeName":"`+node+`"}}'`)
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if ip := mustExec(t, tb, "m0", k+"get pod "+name+" -o jsonpath='{.status.podIP}'"); ip != "" {
			return ip
		}
	}
	t.Fatalf("pod %s on %s got no address", name, node)
	return ""
}

// tcpFrom opens a TCP connection from a host, or from inside its only pod,
// and returns bash's answer: "" when it connected, "Connection refused"
// when a closed port answered (so the address was reached).
func tcpFrom(t *testing.T, tb *testbed.Testbed, host string, inPod bool, ip string, port int) string {
	t.Helper()
	cmd := fmt.Sprintf(`timeout 5 bash -c 'exec 3<>/dev/tcp/%s/%d' 2>&1; true`, ip, port)
	if inPod {
		cmd = `ip netns exec "$(ip netns list | awk '/^cni-/{print $1; exit}')" ` + cmd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := tb.Exec(ctx, host, cmd)
	return strings.TrimSpace(out)
}

func eggoNetworkLeft(t *testing.T, tb *testbed.Testbed, host string) string {
	t.Helper()
	return mustExec(t, tb, host, "ip route show proto 77; iptables-save | grep EGGO; true")
}

// TestPodNetworkOnTestbed: pods on two workers reach each other with their
// own addresses (only traffic leaving pod_cidr is masqueraded); removing a
// worker leaves the other's subnet and containerd alone; it comes back with
// the lowest free subnet; destroy leaves no eggo route or rule.
func TestPodNetworkOnTestbed(t *testing.T) {
	bundleDir(t, k8sTo)
	tb := testbed.UpForTestWith(t, testbed.Options{N: 3, Names: []string{"m0", "w0", "w1"}, Containers: true})
	dir := t.TempDir()
	podnetConfig(t, dir, tb, "w0", "w1")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("deploy failed: %v %v", res.Failed, res.Skipped)
	}
	if got := recordedPodSubnets(t, dir); got["w0"] != "10.244.0.0/24" || got["w1"] != "10.244.1.0/24" || len(got) != 2 {
		t.Fatalf("pod subnets recorded: %v", got)
	}
	if r := mustExec(t, tb, "w0", "ip route show proto 77"); r != fmt.Sprintf("10.244.1.0/24 via %s dev eth0", hostAddr(t, tb, "w1")) {
		t.Errorf("w0's pod routes: %q", r)
	}
	p0, p1 := podIP(t, tb, "p0", "w0"), podIP(t, tb, "p1", "w1")
	if !strings.HasPrefix(p0, "10.244.0.") || !strings.HasPrefix(p1, "10.244.1.") {
		t.Fatalf("pod addresses %s (w0) %s (w1) outside their nodes' subnets", p0, p1)
	}
	// w1 counts what reaches it from p0's own address (a rule with no target).
	counter := fmt.Sprintf("-s %s -d %s -p tcp --dport 80 -m comment --comment pod-to-pod", p0, p1)
	mustExec(t, tb, "w1", "iptables -I FORWARD 1 "+counter)
	// A pause pod listens nowhere: its kernel's reset proves it was reached.
	for _, from := range []struct {
		host  string
		inPod bool
	}{{"w0", true}, {"w0", false}} {
		if got := tcpFrom(t, tb, from.host, from.inPod, p1, 80); !strings.Contains(got, "Connection refused") {
			t.Errorf("%s (in pod: %t) → pod %s on w1: %q, want the pod's reset", from.host, from.inPod, p1, got)
		}
	}
	if got := tcpFrom(t, tb, "w1", true, p0, 80); !strings.Contains(got, "Connection refused") {
		t.Errorf("pod on w1 → pod %s on w0: %q", p0, got)
	}
	// Between pods the source stays the pod's; out of pod_cidr it is the node's.
	if n := mustExec(t, tb, "w1", "iptables -L FORWARD -v -n -x | awk '/pod-to-pod/{print $1}'; iptables -D FORWARD "+counter); n == "" || n == "0" {
		t.Errorf("no packet reached w1 from %s to %s (counted %q): the pod's address was not kept", p0, p1, n)
	}
	if got := tcpFrom(t, tb, "w0", true, hostAddr(t, tb, "w1"), 22); got != "" {
		t.Errorf("pod on w0 → w1's sshd: %q", got)
	}
	if ct := mustExec(t, tb, "w1", "conntrack -L 2>&1; true"); !strings.Contains(ct, fmt.Sprintf("src=%s dst=%s ", hostAddr(t, tb, "w0"), hostAddr(t, tb, "w1"))) {
		t.Errorf("the pod's connection to w1's address was not masqueraded to w0's:\n%s", ct)
	}

	// w0 goes: w1 keeps its subnet, its containerd is not restarted, its
	// route to w0's pods goes; w0 is left without eggo's routes and rules.
	containerdRun := func() string { return mustExec(t, tb, "w1", "systemctl show -p InvocationID --value containerd") }
	before := containerdRun()
	podnetConfig(t, dir, tb, "w1")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("removing w0 failed: %v %v", res.Failed, res.Skipped)
	}
	if got := recordedPodSubnets(t, dir); got["w1"] != "10.244.1.0/24" || len(got) != 1 {
		t.Errorf("after removing w0, pod subnets recorded: %v", got)
	}
	if after := containerdRun(); after != before {
		t.Errorf("removing w0 restarted w1's containerd (%s → %s)", before, after)
	}
	if left := eggoNetworkLeft(t, tb, "w1"); strings.Contains(left, "proto") || strings.Contains(left, "10.244.0.0/24") {
		t.Errorf("w1 kept a route to removed w0's pods: %q", left)
	}
	if left := eggoNetworkLeft(t, tb, "w0"); left != "" {
		t.Errorf("w0 removed, eggo's network left there: %q", left)
	}

	// w0 comes back, declared last: the lowest free subnet, its old one.
	podnetConfig(t, dir, tb, "w1", "w0")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("adding w0 back failed: %v %v", res.Failed, res.Skipped)
	}
	if got := recordedPodSubnets(t, dir); got["w0"] != "10.244.0.0/24" || got["w1"] != "10.244.1.0/24" {
		t.Errorf("after adding w0 back, pod subnets recorded: %v", got)
	}
	if r := mustExec(t, tb, "w1", "ip route show proto 77"); r != fmt.Sprintf("10.244.0.0/24 via %s dev eth0", hostAddr(t, tb, "w0")) {
		t.Errorf("w1's pod routes: %q", r)
	}

	if _, res := runApply(t, dir, func(o *Options) { o.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
	for _, h := range []string{"w0", "w1"} {
		if left := eggoNetworkLeft(t, tb, h); left != "" {
			t.Errorf("destroy left eggo's network on %s: %q", h, left)
		}
	}
}
