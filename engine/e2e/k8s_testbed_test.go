package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/eggotest"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// The Kubernetes versions the tests deploy, from `make bundle`'s bundles:
// k8sDefault is the default minor's (the demo's, the examples', the
// conformance smoke's), and the clusters that are upgraded go from it to
// k8sNext, the newest minor.
const (
	k8sDefault = "1.36.5"
	k8sNext    = "1.37.2"
)

// imagesOf are the images of a version's minor (resources.MinorOf): the
// pods the tests start run them, from the bundle.
func imagesOf(version string) resources.KubernetesMinor {
	m, err := resources.MinorOf(version)
	if err != nil {
		panic(err)
	}
	return m
}

// k8sImages are the images of the default minor.
var k8sImages = imagesOf(k8sDefault)

// bundleDir is make bundle's bundle of a version (skipped with -short).
func bundleDir(t *testing.T, version string) string {
	t.Helper()
	return eggotest.Bundle(t, version)
}

// k8sRoles are the roles of the end-to-end cluster's nodes, by the first
// letter of their names.
var k8sRoles = map[byte]string{
	'l': `["loadbalance"]`,
	'm': `["master", "etcd"]`,
	'e': `["etcd"]`,
	'w': `["worker"]`,
}

// k8sCluster is what k8sConfigOf writes: a version and its bundle, lines
// for the cluster and the connection blocks, and the nodes (k8sRoles).
type k8sCluster struct {
	version, packages, extra string
	connection               []string
	nodes                    []string
	nodeExtra                map[string]string // more lines of a node's block, by node
}

func k8sConfigOf(t *testing.T, dir string, tb *nspawntest.Testbed, c k8sCluster) {
	t.Helper()
	addr := addresses(tb)
	var b strings.Builder
	fmt.Fprintf(&b, `cluster "e2e" {
  kubernetes_version = %q
  packages           = %q
  %s
  # The testbed's hosts have no resolver to forward to.
  addons {
    coredns          = true
    coredns_upstream = []
  }
%s
}
%s
`, c.version, c.packages, testbedRuntime, c.extra, connectionBlock(tb, c.connection...))
	for _, n := range c.nodes {
		fmt.Fprintf(&b, "node %q {\n  address = %q\n  roles   = %s\n  %s\n}\n", n, addr[n], k8sRoles[n[0]], c.nodeExtra[n])
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addresses maps a testbed's host names to their addresses.
func addresses(tb *nspawntest.Testbed) map[string]string {
	addr := map[string]string{}
	for _, h := range tb.Hosts {
		addr[h.Name] = h.Address
	}
	return addr
}

// connectionBlock is the connection block that reaches a testbed's hosts,
// with extra attribute lines.
func connectionBlock(tb *nspawntest.Testbed, extra ...string) string {
	h := tb.Hosts[0]
	lines := append([]string{fmt.Sprintf("user = %q", h.User), fmt.Sprintf("private_key_file = %q", h.KeyFile),
		fmt.Sprintf("known_hosts_file = %q", h.KnownHostsFile)}, extra...)
	return "connection {\n  " + strings.Join(lines, "\n  ") + "\n}"
}

// exec runs a command on a testbed host and fails the test on error.
func mustExec(t *testing.T, tb *nspawntest.Testbed, host, cmd string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := tb.Exec(ctx, host, cmd)
	if err != nil {
		t.Fatalf("%s: %s: %v\n%s", host, cmd, err, out)
	}
	return strings.TrimSpace(out)
}

// kubectl runs kubectl on m0 with the admin kubeconfig pointed at the load
// balancer, as the operator's own kubeconfig is.
func kubectl(t *testing.T, tb *nspawntest.Testbed, lb, args string) string {
	t.Helper()
	return mustExec(t, tb, "m0", "kubectl --kubeconfig /etc/kubernetes/admin.conf --server https://"+lb+":6443 "+args)
}

// unitInvocations maps host/unit to systemd's invocation ID: a restart
// changes it.
func unitInvocations(t *testing.T, tb *nspawntest.Testbed, hosts ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, h := range hosts {
		lines := mustExec(t, tb, h, `for u in etcd kube-apiserver kube-controller-manager kube-scheduler kube-lb containerd kubelet kube-proxy flanneld; do
  if [ -f /etc/systemd/system/$u.service ]; then echo "$u $(systemctl show -p InvocationID --value $u)"; fi
done`)
		for _, l := range strings.Split(lines, "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				out[h+"/"+f[0]] = f[1]
			}
		}
	}
	return out
}

// k8sWriter writes the end-to-end cluster at a version, with lines for the
// cluster block and the workers.
type k8sWriter func(version, extra string, workers ...string)

// w0Registration is what w0 registers with in kubernetesE2E: a provider
// ID (as Cluster API's Machines find their Nodes) and a taint that
// schedules nothing away from it.
var w0Registration = map[string]string{"w0": `provider_id = "eggo://e2e/w0/1"
  taints      = ["spot=true:PreferNoSchedule"]`}

func kubernetesE2E(t *testing.T, m k8sMode) {
	bundleDir(t, k8sDefault)
	bundleDir(t, k8sNext)
	all := []string{"lb", "m0", "m1", "e0", "w0", "w1"}
	if m.pod {
		all = append(all, "e1") // the etcd member that joins in clusterFaults
	}
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{N: len(all), Names: all, Containers: true,
		Networks: 2, NetworkOf: map[string]int{"w1": 1}})
	addr := addresses(tb)
	before := map[string]string{}
	for _, h := range all {
		before[h] = hostTree(t, tb, h)
	}
	dir := t.TempDir()
	// mode is the implementation the cluster is at: the run switches it
	// once, before its upgrade, so each implementation is upgraded in one
	// of the two runs and switched to in the other.
	mode := m
	config := k8sWriter(func(version, extra string, workers ...string) {
		k8sConfigOf(t, dir, tb, k8sCluster{version: version, packages: bundleDir(t, version), extra: mode.cluster() + "\n" + extra,
			nodes: append([]string{"lb", "m0", "m1", "e0"}, workers...), nodeExtra: w0Registration})
	})

	// Deploy, with the state's secrets sealed to two operators and every
	// run's debug log kept for the leak scan.
	config(k8sDefault, "", "w0")
	sealed := sealStateTo(t, dir, tb)
	logs := &lockedBuffer{}
	logRunsTo(t, dir, logs)
	start := time.Now()
	_, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("deploy failed: %v %v", res.Failed, res.Skipped)
	}
	checkNoSecretLeaks(t, dir, sealed, logs)
	t.Logf("deploy of 5 hosts: %s, %d connections, %s uploaded", time.Since(start).Round(100*time.Millisecond), res.Connections, resources.HumanBytes(res.Bytes))
	if res.Connections != 5 {
		t.Errorf("deploy opened %d connections, want one per host (5)", res.Connections)
	}
	health := mustExec(t, tb, "m0", "ETCDCTL_API=3 etcdctl --cacert /etc/kubernetes/etcd/ca.crt --cert /etc/kubernetes/etcd/server.crt --key /etc/kubernetes/etcd/server.key "+
		fmt.Sprintf("--endpoints https://%s:2379,https://%s:2379,https://%s:2379 endpoint health 2>&1", addr["m0"], addr["m1"], addr["e0"]))
	if strings.Count(health, "is healthy") != 3 {
		t.Errorf("etcd members not all healthy over TLS:\n%s", health)
	}
	if got := kubectl(t, tb, addr["lb"], "get --raw /readyz"); got != "ok" {
		t.Errorf("/readyz through the load balancer = %q", got)
	}
	leases := kubectl(t, tb, addr["lb"], "-n kube-system get lease kube-controller-manager kube-scheduler -o jsonpath='{.items[*].spec.holderIdentity}'")
	if f := strings.Fields(leases); len(f) != 2 || !strings.HasPrefix(f[0], "m") || !strings.HasPrefix(f[1], "m") {
		t.Errorf("leader leases held by %q, want a master each", leases)
	}
	if st := kubectl(t, tb, addr["lb"], `get node w0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'`); st != "True" {
		t.Errorf("w0 Ready = %q", st)
	}
	// w0 registered with its provider_id and taints (w0Registration).
	if got := kubectl(t, tb, addr["lb"], `get node w0 -o jsonpath='{.spec.providerID} {.spec.taints[?(@.key=="spot")].value}:{.spec.taints[?(@.key=="spot")].effect}'`); got != "eggo://e2e/w0/1 true:PreferNoSchedule" {
		t.Errorf("w0's providerID and spot taint = %q, want eggo://e2e/w0/1 true:PreferNoSchedule", got)
	}
	m.checkControlPlane(t, tb, addr["lb"], k8sDefault, "m0", "m1")
	kubectl(t, tb, addr["lb"], "run p1 --image="+k8sImages.Pause+" --image-pull-policy=Never --restart=Never")
	podIP := ""
	for i := 0; i < 60 && podIP == ""; i++ {
		podIP = kubectl(t, tb, addr["lb"], `get pod p1 -o jsonpath='{.status.podIP}'`)
		if podIP == "" {
			time.Sleep(time.Second)
		}
	}
	if phase := kubectl(t, tb, addr["lb"], `get pod p1 -o jsonpath='{.status.phase} {.spec.nodeName}'`); phase != "Running w0" || podIP == "" {
		t.Errorf("pod: %q with IP %q, want Running on w0 with a pod IP", phase, podIP)
	}
	// Cluster DNS: CoreDNS from the bundle answers at the tenth address
	// of service_cidr (10.32.0.0/16 by default).
	if !slices.Contains(res.Applied, "addon.coredns") {
		t.Errorf("addon.coredns was not applied: %v", res.Applied)
	}
	if got := mustExec(t, tb, "w0", "dig +short +time=2 +tries=10 @10.32.0.10 kubernetes.default.svc.cluster.local"); got != "10.32.0.1" {
		t.Errorf("cluster DNS answers %q for kubernetes.default, want 10.32.0.1", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "e2e.kubeconfig")); err != nil {
		t.Errorf("admin kubeconfig next to the state: %v", err)
	}

	// No-op: nothing written, nothing restarted.
	units := m.restarts(t, tb, addr["lb"], all[:5]...)
	start = time.Now()
	p, res := runApply(t, dir, nil)
	if p.HasChanges() || res.Writes != 0 || res.Bytes != 0 {
		t.Errorf("second apply: changes=%v writes=%d bytes=%d", actions(p), res.Writes, res.Bytes)
	}
	t.Logf("no-op apply: %s, %d connections", time.Since(start).Round(100*time.Millisecond), res.Connections)
	if d := diffMaps(units, m.restarts(t, tb, addr["lb"], all[:5]...)); d != "" {
		t.Errorf("restarted by a no-op apply:\n%s", d)
	}

	if m.pod {
		podDriftAndRollback(t, tb, dir, config)
	} else {
		cutMidApply(t, tb, dir, config, m)
	}

	// Join: only w1's resources.
	config(k8sDefault, "", "w0", "w1")
	start = time.Now()
	p, res = runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("join failed: %v %v", res.Failed, res.Skipped)
	}
	// Only w1's own resources: no other node's configuration names it.
	onlyNodeChanges(t, "join of w1", p, "w1")
	t.Logf("join of w1: %s, %d created", time.Since(start).Round(100*time.Millisecond), res.Counts.Add)
	if st := kubectl(t, tb, addr["lb"], `get node w1 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'`); st != "True" {
		t.Errorf("w1 Ready = %q", st)
	}
	// Pods on two workers in two subnets reach each other: a connection
	// from a pod on w0 to a pod on w1 is refused by w1's pod itself (pause
	// listens on nothing), not lost on the way. w0 learned w1's pods from
	// the API (flannel), through its VXLAN device.
	w1Subnet := recordedPodSubnets(t, dir)["w1"]
	if got := mustExec(t, tb, "w0", "ip route show "+w1Subnet); !strings.Contains(got, "dev "+kube.FlannelLink) {
		t.Errorf("w0's route to w1's pod subnet %s: %q, want it through flannel", w1Subnet, got)
	}
	p2IP := runPod(t, tb, "p2", "w1", k8sImages.Pause)
	if reach := tcpFrom(t, tb, "w0", podIP, p2IP, 80); !strings.Contains(reach, "Connection refused") {
		t.Errorf("the pod on w0 cannot reach the pod on w1 (%q): %q", p2IP, reach)
	}
	checkServicesAcrossSubnets(t, tb, "w0", podIP, "w1")

	// Delete: drained and gone, the host as before.
	config(k8sDefault, "", "w0")
	if p, res = runApply(t, dir, nil); !res.OK() {
		t.Fatalf("delete failed: %v %v", res.Failed, res.Skipped)
	}
	onlyNodeChanges(t, "delete of w1", p, "w1")
	if got := kubectl(t, tb, addr["lb"], "get node w1 --ignore-not-found -o name"); got != "" {
		t.Errorf("node w1 still registered: %q", got)
	}
	if got := kubectl(t, tb, addr["lb"], "get pod p2 --ignore-not-found -o name"); got != "" {
		t.Errorf("pod p2 survived the drain of w1: %q", got)
	}
	if got := mustExec(t, tb, "w0", "ip route show "+w1Subnet); got != "" {
		t.Errorf("w0 keeps a route to the removed w1's pods: %q", got)
	}
	if got := hostTree(t, tb, "w1"); got != before["w1"] {
		t.Errorf("w1 not as before after its delete:\n%s", nspawntest.TreeDiff(before["w1"], got))
	}
	mode = k8sMode{pod: !m.pod}
	switchWithPolls(t, tb, dir, addr["lb"], config, mode)

	// Rolling upgrade, with the API polled through the load balancer, and
	// upgrade hooks on every node and once for the cluster.
	config(k8sNext, "", "w0")
	upgradeHooks(t, dir)
	ownReleasesBefore := unitInvocations(t, tb, "m0", "m1", "e0", "w0") // containerd
	// A real API request through the load balancer, with w0's kubelet's
	// credentials. (Not /readyz: a draining apiserver answers it "not
	// ready" on purpose while still serving requests.)
	poll := pollAPI(t, tb, "w0", "/etc/kubernetes/kubelet/kubeconfig", "/api/v1/nodes/w0")
	start = time.Now()
	p, res = runApply(t, dir, nil)
	poll.Stop()
	if !res.OK() {
		t.Fatalf("upgrade failed: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("upgrade %s → %s: %s; load balancer polled %d times, %d failed", k8sDefault, k8sNext,
		time.Since(start).Round(time.Second), poll.polls.Load(), poll.failures.Load())
	// The roll: etcd's members one at a time (the next minor's etcd is
	// the next etcd minor), then the masters one at a time, then the
	// worker. containerd is left running: both bundles carry the same
	// containerd, and restarting it bought nothing.
	waits := func(addr, dep string) {
		t.Helper()
		if s := p.Step(addr); s == nil || !slices.Contains(s.WaitsFor, dep) {
			t.Errorf("%s does not wait for %s in the upgrade", addr, dep)
		}
	}
	for _, m := range []string{"m0", "m1", "e0"} {
		if s := p.Step("etcd_member." + m); s == nil || s.Action != resources.Update {
			t.Errorf("etcd_member.%s in an upgrade to the next etcd minor: %v, want an update", m, s)
		}
		waits(`service.kube-apiserver["m0"]`, "etcd_member."+m)
	}
	// Each member saved its keyspace before its new program started.
	for _, m := range []string{"m0", "m1", "e0"} {
		snap := mustExec(t, tb, m, "ls "+kube.EtcdSnapshotDir)
		if n := strings.Count(snap, ".db"); n != 1 {
			t.Errorf("%s's etcd snapshots after the upgrade: %q, want one", m, snap)
		}
	}
	if s := p.Step(`service.containerd["w0"]`); s == nil || s.Action != resources.NoOp {
		t.Errorf("containerd on w0 changes in an upgrade that keeps containerd's program: %v", s)
	}
	for unit, id := range unitInvocations(t, tb, "m0", "m1", "e0", "w0") {
		if strings.HasSuffix(unit, "/containerd") && ownReleasesBefore[unit] != id {
			t.Errorf("%s restarted by the upgrade", unit)
		}
	}
	// A kubelet of the next minor would replace the static pods it finds
	// running, killing the apiserver without its shutdown delay: the old
	// kubelet stops them first (kubelet_minor.go).
	for _, n := range []string{"m0", "m1"} {
		s := p.Step(resources.ServiceAddr(resources.CompKubelet, n))
		if held := s != nil && strings.Contains(reasonsText(s.Reasons), "stops the static pods kube-apiserver-"+n); held != mode.pod {
			t.Errorf("%s's kubelet in the upgrade (static pods: %v): %v, want its static pods stopped first exactly when it runs them", n, mode.pod, s)
		}
	}
	waits(`service.kube-apiserver["m1"]`, `service.kube-apiserver["m0"]`)
	waits(`service.kube-apiserver["m1"]`, `service.kube-scheduler["m0"]`)
	waits(`service.kubelet["w0"]`, `service.kube-apiserver["m1"]`)
	// Each node's upgrade is wrapped by its hooks: m1's apiserver restarts
	// only after m0's post-upgrade hook passed, w0's kubelet only after
	// m1's and after its own pre-upgrade hook (its containerd, the same
	// program in both bundles, is not part of the upgrade).
	waits(`service.kube-apiserver["m1"]`, `hook.up["post-upgrade/m0"]`)
	waits(`service.kubelet["w0"]`, `hook.up["post-upgrade/m1"]`)
	waits(`service.kubelet["w0"]`, `hook.up["pre-upgrade/w0"]`)
	for _, n := range []string{"m0", "m1", "w0"} {
		for _, typ := range []string{"prehook", "posthook"} {
			env := mustExec(t, tb, n, "cat "+hookOut+"/up-"+typ+"-upgrade-"+n+".env") + "\n"
			for _, want := range []string{"EGGO_OPERATOR=upgrade", "EGGO_HOOK_TYPE=" + typ, "EGGO_NODE_NAME=" + n, "EGGO_NODE_IP=" + addr[n], "EGGO_CLUSTER_ID=e2e",
				"EGGO_CLUSTER_API_ENDPOINT=" + addr["lb"] + ":6443"} {
				if !strings.Contains(env, want+"\n") {
					t.Errorf("%s's %s upgrade hook: no %s in\n%s", n, typ, want, env)
				}
			}
		}
	}
	if env := mustExec(t, tb, "m0", "cat "+hookOut+"/upcluster-prehook-upgrade-m0.env"); !strings.Contains(env, "EGGO_OPERATOR=upgrade") || !strings.Contains(env, "EGGO_HOOK_NAME=upcluster") {
		t.Errorf("cluster upgrade hook on m0:\n%s", env)
	}
	t.Logf("roll: %s", strings.Join(rollOrder(p), ", "))
	if poll.failures.Load() > 0 {
		t.Errorf("the API was unreachable through the load balancer during the upgrade: %v", poll.first.Load())
	}
	versions := kubectl(t, tb, addr["lb"], `get --raw /version`)
	if !strings.Contains(versions, `"gitVersion": "v`+k8sNext+`"`) {
		t.Errorf("apiserver version after upgrade: %s", versions)
	}
	// Every Node (the masters are Nodes too) at the new version.
	nodes := strings.Fields(kubectl(t, tb, addr["lb"], `get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.status.nodeInfo.kubeletVersion} {end}'`))
	if len(nodes) < 3 {
		t.Errorf("the Nodes after the upgrade: %q", nodes)
	}
	for _, n := range nodes {
		if !strings.HasSuffix(n, "=v"+k8sNext) {
			t.Errorf("a Node's kubelet after the upgrade: %s, want v%s", n, k8sNext)
		}
	}
	mode.checkControlPlane(t, tb, addr["lb"], k8sNext, "m0", "m1")

	// The faults, on the pods run's cluster (its control plane now in
	// units, as the faults' own cluster had it): w0 leaves the cluster
	// dead, its files kept.
	inCluster := all
	if m.pod {
		clusterFaults(t, tb, dir, before)
		inCluster = slices.DeleteFunc(slices.Clone(all), func(h string) bool { return h == "w0" })
	}

	// Destroy: every host as it was.
	if _, res = runApply(t, dir, func(r *runOpts) { r.req.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
	for _, h := range inCluster {
		if got := hostTree(t, tb, h); got != before[h] {
			t.Errorf("%s not as before after destroy:\n%s", h, nspawntest.TreeDiff(before[h], got))
		}
		if ps := mustExec(t, tb, h, "ps -eo comm= | grep -E '^(etcd|kube|containerd|haproxy|pause|flanneld)' || true"); ps != "" {
			t.Errorf("%s: processes left after destroy: %s", h, ps)
		}
	}
}

// cutMidApply cuts a master off in the middle of an apply: the rest
// finishes, the state keeps what was done, and the next apply converges.
// (The engine's, not an implementation's: the units run has it.)
func cutMidApply(t *testing.T, tb *nspawntest.Testbed, dir string, config k8sWriter, m k8sMode) {
	t.Helper()
	config(k8sDefault, `extra_args = { kube-apiserver = { v = "1" } }`, "w0")
	cut := &cutHook{match: func(addr, msg string) bool { return addr == `service.kube-apiserver["m1"]` && msg == "" }, cut: func() {
		if err := tb.Cut("m1"); err != nil {
			t.Error(err)
		}
	}}
	_, res := runApply(t, dir, func(r *runOpts) { r.obs = cut })
	if _, failed := res.Failed[`service.kube-apiserver["m1"]`]; !failed || res.OK() {
		t.Fatalf("apply with m1 cut off: failed %v", res.Failed)
	}
	if !slices.Contains(res.Applied, `service.kube-apiserver["m0"]`) {
		t.Errorf("m0's apiserver was not updated while m1 was cut off: applied %v", res.Applied)
	}
	if err := res.Failed[`service.kube-apiserver["m1"]`]; !strings.Contains(err.Error(), "m1") {
		t.Errorf("m1 cut off mid-apply: %v; want the error to name the host", err)
	}
	t.Logf("m1 cut off mid-apply: %v", res.Failed[`service.kube-apiserver["m1"]`])
	if err := tb.Restore("m1"); err != nil {
		t.Fatal(err)
	}
	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("apply after m1 came back: %v %v", res.Failed, res.Skipped)
	}
	if a := actions(p); a[`service.kube-apiserver["m1"]`] != resources.Update || a[`service.kube-apiserver["m0"]`] != resources.NoOp {
		t.Errorf("converging apply: m1 %s, m0 %s; want m1 updated, m0 left alone", a[`service.kube-apiserver["m1"]`], a[`service.kube-apiserver["m0"]`])
	}
	if def := m.definition(t, tb, "m1", resources.CompAPIServer); !strings.Contains(def, "--v=1") {
		t.Errorf("m1's apiserver lacks --v=1 after converging:\n%s", def)
	}
	config(k8sDefault, "", "w0")
	if _, res = runApply(t, dir, nil); !res.OK() {
		t.Fatalf("back to the plain apiserver flags: %v %v", res.Failed, res.Skipped)
	}
}

// rollOrder lists the upgraded services in the order the plan's edges
// allow them to run (a step after all it waits for).
func rollOrder(p *engine.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.Action == resources.Update && (s.Kind == "service" || s.Kind == "etcd_member") {
			out = append(out, fmt.Sprintf("%s(after %d)", s.Addr, len(s.WaitsFor)))
		}
	}
	sort.Strings(out)
	return out
}

// cutHook cuts a host off the moment a resource starts changing or
// reports a step that match selects (msg "" for the start): a fault at a
// known point of an apply, not after a guessed delay.
type cutHook struct {
	engine.NopObserver
	match func(addr, msg string) bool
	cut   func()
	once  sync.Once
}

func (c *cutHook) PreApply(ch *resources.Change) {
	if c.match(ch.Addr, "") {
		c.once.Do(c.cut)
	}
}

func (c *cutHook) Progress(addr, msg string) {
	if c.match(addr, msg) {
		c.once.Do(c.cut)
	}
}

// upgradeHooks adds node and cluster hooks around every upgrade: each
// writes its environment on the node it runs on (envScript).
func upgradeHooks(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks", "env.sh"), []byte(envScript), 0o755); err != nil {
		t.Fatal(err)
	}
	hcl := `
hook "up" {
  on     = ["pre-upgrade", "post-upgrade"]
  source = "hooks/env.sh"
}
hook "upcluster" {
  on     = ["pre-upgrade", "post-upgrade"]
  scope  = "cluster"
  source = "hooks/env.sh"
}
`
	if err := os.WriteFile(filepath.Join(dir, "hooks.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
}
