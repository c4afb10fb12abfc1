package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// adminKubectl is kubectl on m0 with its admin kubeconfig.
const adminKubectl = "kubectl --kubeconfig /etc/kubernetes/admin.conf "

// runPod starts a pod of image on a node (never pulled: the bundle's
// images only) and waits for its address.
func runPod(t *testing.T, tb *nspawntest.Testbed, name, node, image string) string {
	t.Helper()
	mustExec(t, tb, "m0", adminKubectl+"run "+name+" --image="+image+` --image-pull-policy=Never --restart=Never --overrides='{"spec":{"nodeName":"`+node+`"}}'`)
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if ip := mustExec(t, tb, "m0", adminKubectl+"get pod "+name+" -o jsonpath='{.status.podIP}'"); ip != "" {
			return ip
		}
	}
	t.Fatalf("pod %s on %s got no address", name, node)
	return ""
}

// inPod runs a command on a host inside the network namespace of its pod
// whose address is ip.
func inPod(t *testing.T, tb *nspawntest.Testbed, host, ip, cmd string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The namespace is looked for a few times: a sandbox the API already
	// reported may still be settling (once in CI it was not found).
	out, err := tb.Exec(ctx, host, fmt.Sprintf(`for try in 1 2 3 4 5 6 7 8 9 10; do
  for ns in $(ip netns list | awk '/^cni-/{print $1}'); do
    if ip -n "$ns" -o addr show | grep -q " %s/"; then ip netns exec "$ns" sh -c %s; exit; fi
  done
  sleep 2
done
echo "no pod netns has %s" >&2; exit 1`, ip, shell.Quote(cmd), ip))
	if err != nil {
		// Why the pod is not where the API said: its events, the
		// sandboxes the node has, and what kubelet said of them.
		diag, _ := tb.Exec(ctx, "m0", adminKubectl+"get pods -o wide; "+adminKubectl+"get events --sort-by=.lastTimestamp")
		node, _ := tb.Exec(ctx, host, "crictl pods; ip -o addr show | grep -v ' lo '; journalctl -u kubelet -u containerd --no-pager -n 80")
		t.Fatalf("%s: in the pod with %s: %v\n%s\nm0:\n%s\n%s:\n%s", host, ip, err, out, diag, host, node)
	}
	return strings.TrimSpace(out)
}

// podPathDiag is what tells why the pod fromIP on from cannot reach the
// pod toIP on to, for a failure message. "No route to host" from a pod
// means an address on the way did not resolve (ARP), not a missing
// route: without a route the testbed's nodes send the packet to this
// machine, which drops it silently, and the connect times out. The
// addresses that can fail to resolve are the pod's gateway (cni0 on
// from), flannel's next hop for the peer's subnet (its VTEP address
// on from's flannel.1, a permanent neighbour flanneld adds) and the
// pod itself (cni0 on to). Each node says which it has; m0 says what
// the API has for the pods and flannel's annotations. Commands that
// fail are part of the text.
func podPathDiag(tb *nspawntest.Testbed, from, fromIP, to, toIP string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	node := fmt.Sprintf(`echo "# ip route get %[1]s"; ip route get %[1]s
echo "# %[3]s"; ip -d link show %[3]s | head -3
echo "# neighbours on %[3]s"; ip neigh show dev %[3]s
echo "# fdb of %[3]s"; bridge fdb show dev %[3]s
echo "# cni0 and its ports"; ip -br addr show cni0; ip -br link show master cni0
echo "# neighbours on cni0"; ip neigh show dev cni0
echo "# forwarding"; cat /proc/sys/net/ipv4/ip_forward
for ns in $(ip netns list | awk '/^cni-/{print $1}'); do
  if ip -n "$ns" -o -4 addr show | grep -qE " (%[1]s|%[2]s)/"; then
    echo "# pod netns $ns"; ip -n "$ns" -br addr; ip -n "$ns" route; ip -n "$ns" neigh
  fi
done
echo "# flanneld"; journalctl -u flanneld --no-pager -o cat -n 25 | tail -c 2500
true`, toIP, fromIP, kube.FlannelLink)
	var b strings.Builder
	for _, host := range []string{from, to} {
		out, err := tb.Exec(ctx, host, node)
		fmt.Fprintf(&b, "--- %s (err %v):\n%s\n", host, err, out)
	}
	api, err := tb.Exec(ctx, "m0", adminKubectl+"get pods -o wide; "+adminKubectl+
		`get nodes -o jsonpath='{range .items[*]}{.metadata.name} {.spec.podCIDR} {.metadata.annotations.flannel\.alpha\.coreos\.com/public-ip} {.metadata.annotations.flannel\.alpha\.coreos\.com/backend-data}{"\n"}{end}'; `+
		adminKubectl+"get events --sort-by=.lastTimestamp | tail -20")
	fmt.Fprintf(&b, "--- m0 (err %v):\n%s", err, api)
	return b.String()
}

// checkServicesAcrossSubnets: a pod on each side reaches a Service whose
// backend is on the other side, and resolves names through cluster DNS
// (CoreDNS on dnsSide). The backend on serviceSide is CoreDNS's image with
// no Corefile, which serves its default "whoami" zone: it answers with
// the address it saw the query come from, so the test also sees that a
// pod's address crosses the subnets unchanged.
func checkServicesAcrossSubnets(t *testing.T, tb *nspawntest.Testbed, client, clientIP, serviceSide string) {
	t.Helper()
	runPod(t, tb, "whoami", serviceSide, k8sImages.CoreDNS)
	mustExec(t, tb, "m0", adminKubectl+"expose pod whoami --name whoami --port 53 --protocol TCP")
	svc := mustExec(t, tb, "m0", adminKubectl+"get service whoami -o jsonpath='{.spec.clusterIP}'")
	var got string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		got = inPod(t, tb, client, clientIP, "dig +tcp +time=2 +tries=2 +noall +additional @"+svc+" whoami.example A 2>&1 || true")
		if strings.Contains(got, "\tA\t") {
			break
		}
	}
	if !strings.Contains(got+"\n", "\tA\t"+clientIP+"\n") { // to the end of the line: 10.244.1.5 is a prefix of 10.244.1.53
		t.Errorf("pod %s on %s → Service %s (backend on %s): whoami answered %q, want the pod's own address", clientIP, client, svc, serviceSide, got)
	}
	for _, side := range []struct{ host, ip string }{{client, clientIP}, {serviceSide, runPod(t, tb, "dnsclient", serviceSide, k8sImages.Pause)}} {
		if got := inPod(t, tb, side.host, side.ip, "dig +short +time=2 +tries=10 @10.32.0.10 kubernetes.default.svc.cluster.local"); got != "10.32.0.1" {
			t.Errorf("cluster DNS from a pod on %s answers %q for kubernetes.default, want 10.32.0.1", side.host, got)
		}
	}
	mustExec(t, tb, "m0", adminKubectl+"delete service whoami && "+adminKubectl+"delete pod whoami dnsclient --wait=false")
}

// flannelLeft is what flannel left on a host: its VXLAN device, its
// iptables chains, its lease.
func flannelLeft(t *testing.T, tb *nspawntest.Testbed, host string) string {
	t.Helper()
	return mustExec(t, tb, host, "ip -o link show "+kube.FlannelLink+" 2>/dev/null; iptables-save | grep -i flannel; ls "+kube.FlannelSubnetFile+" 2>/dev/null; true")
}

// onlyNodeChanges fails the test for a change of the plan to anything but
// the given node's resources.
func onlyNodeChanges(t *testing.T, what string, p *engine.Plan, node string) {
	t.Helper()
	for _, s := range p.Steps {
		if s.Action != resources.NoOp && s.Node != node {
			t.Errorf("%s changes %s (%s: %v)", what, s.Addr, s.Action, s.Reasons)
		}
	}
}
