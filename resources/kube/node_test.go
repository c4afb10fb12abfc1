package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/eggo-project/eggo/resources/resourcestest"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"

	// The master is reached over the real local transport.
	_ "github.com/eggo-project/eggo/providers/local"
)

// fakeKubectl puts a kubectl on PATH that logs each call's arguments to
// the returned file and answers `get nodes -o name` with nodes.
func fakeKubectl(t *testing.T, nodes ...string) (calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	fakeKubectlNodes(t, calls, nodes...)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return calls
}

// fakeKubectlNodes changes the Nodes the fake kubectl reports, keeping
// its call log.
func fakeKubectlNodes(t *testing.T, calls string, nodes ...string) {
	t.Helper()
	var out strings.Builder
	for _, n := range nodes { // "w0" (no podCIDR), "w0=10.244.0.0/24", "m0=10.244.0.0/24=key1,key2" (taints) or "…=…=…=eggo://x" (providerID)
		f := strings.Split(n, "=")
		for len(f) < 4 {
			f = append(f, "<none>")
		}
		out.WriteString(strings.Join(f, "   ") + "\n")
	}
	script := "#!/bin/sh\necho \"$*\" >> " + shell.Quote(calls) + "\ncase \"$*\" in *'get nodes --no-headers'*) printf '%s' " +
		shell.Quote(out.String()) + " ;; *) echo \"unexpected kubectl $*\" >&2; exit 3 ;; esac\n"
	resourcestest.WriteFile(t, filepath.Join(filepath.Dir(calls), "kubectl"), script, 0o755)
}

// k8sNodeObjects are recorded Node objects of workers, all through one
// local master.
func k8sNodeObjects(workers ...string) []resources.Object {
	master := resources.Node{Name: "m0", Address: "127.0.0.1", Connection: resources.Connection{Type: "local"}}
	via := map[string]any{"node": "m0", "address": "127.0.0.1", "connection": resources.ConnectionAttrs(master), "kubeconfig": "/etc/kubernetes/admin.conf"}
	var out []resources.Object
	for _, w := range workers {
		attrs := resources.Attrs{k8sNodeName: w, k8sNodeLabels: map[string]any{"node-role.kubernetes.io/worker": ""}, k8sNodeVia: via}
		out = append(out, resources.Object{Addr: K8sNodeAddr(w), Kind: "k8s_node", Node: w, Attrs: resources.Attrs(resources.Normalize(attrs).(map[string]any))})
	}
	return out
}

func TestK8sNodeReadListsNodesOncePerRun(t *testing.T) {
	calls := fakeKubectl(t, "m0", "w0", "w1", "w3")
	objs := k8sNodeObjects("w0", "w1", "w2", "w3")
	readAll := func(rc *resources.RunContext) map[string]resources.Attrs {
		var mu sync.Mutex
		var wg sync.WaitGroup
		live := map[string]resources.Attrs{}
		for _, o := range objs {
			wg.Add(1)
			go func() { // as the engine's refresh does: in parallel
				defer wg.Done()
				a, drift, err := K8sNode{}.Read(context.Background(), rc, o)
				if err != nil || len(drift) != 0 {
					t.Errorf("%s: Read = %v, %v", o.Addr, drift, err)
				}
				mu.Lock()
				live[o.Addr] = a
				mu.Unlock()
			}()
		}
		wg.Wait()
		return live
	}

	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	live := readAll(rc)
	got := resourcestest.KubectlCalls(t, calls)
	if len(got) != 1 || got[0] != "--kubeconfig /etc/kubernetes/admin.conf get nodes --no-headers -o custom-columns=NAME:.metadata.name,CIDR:.spec.podCIDR,TAINTS:.spec.taints[*].key,PROVIDER:.spec.providerID" {
		t.Fatalf("kubectl calls for 4 Nodes in one run = %q, want one listing", got)
	}
	for _, o := range objs {
		switch {
		case o.Addr == "k8s_node.w2" && live[o.Addr] != nil:
			t.Errorf("w2 is not in the cluster, yet Read returned %v (want nil: gone)", live[o.Addr])
		case o.Addr != "k8s_node.w2" && !resources.Equal(map[string]any(live[o.Addr]), map[string]any(o.Attrs)):
			t.Errorf("%s: Read = %v, want the recorded attributes", o.Addr, live[o.Addr])
		}
	}
	if w := rc.Pool.Stats().Writes; w != 0 {
		t.Errorf("Read made %d writes", w)
	}

	// The next run lists again: a Node deleted in between is seen.
	fakeKubectlNodes(t, calls, "m0", "w1", "w3")
	rc2 := resources.NewRunContext(nil, nil)
	defer rc2.Close()
	live = readAll(rc2)
	if got := resourcestest.KubectlCalls(t, calls); len(got) != 2 {
		t.Fatalf("kubectl calls after a second run = %q, want one more", got)
	}
	if live["k8s_node.w0"] != nil || live["k8s_node.w1"] == nil {
		t.Errorf("second run: w0 = %v (want gone), w1 = %v (want there)", live["k8s_node.w0"], live["k8s_node.w1"])
	}
}

func TestParseNodes(t *testing.T) {
	got := parseNodes("w0   10.244.0.0/24   <none>   <none>\nm-0.example   <none>   node-role.kubernetes.io/control-plane,x   eggo://c/m-0/1\n\nw1 fd00:10:244:1::/64\n")
	want := map[string]liveNode{
		"w0":          {podCIDR: "10.244.0.0/24"},
		"m-0.example": {taintKeys: []string{"node-role.kubernetes.io/control-plane", "x"}, providerID: "eggo://c/m-0/1"},
		"w1":          {podCIDR: "fd00:10:244:1::/64"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseNodes = %v, want %v", got, want)
	}
}

// Read keeps of the recorded taints those the Node still has: a master
// whose taint was removed by hand reads without it, so the plan sets it
// again; a worker recorded without taints reads without the attribute (no
// change for states written before masters were Nodes).
func TestK8sNodeReadSeesTaints(t *testing.T) {
	fakeKubectl(t, "m0=10.244.0.0/24="+resources.ControlPlaneTaint, "m1=10.244.1.0/24", "w0=10.244.2.0/24=other")
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	taint := resources.ControlPlaneTaint + ":NoSchedule"
	for _, o := range k8sNodeObjects("m0", "m1", "w0") {
		if o.Node != "w0" {
			o.Attrs[k8sNodeTaints] = []any{taint}
		}
		live, _, err := K8sNode{}.Read(context.Background(), rc, o)
		if err != nil {
			t.Fatal(err)
		}
		got, recorded := live[k8sNodeTaints]
		want := map[string]string{"m0": "[" + taint + "]", "m1": "[]", "w0": "<nil>"}[o.Node]
		if fmt.Sprint(got) != want || recorded != (o.Node != "w0") {
			t.Errorf("%s: taints read %v (%t), want %s", o.Node, got, recorded, want)
		}
	}
}

// setTaints sets every wanted taint and removes only the taints eggo set
// before and no longer wants, tolerating one already gone.
func TestSetTaints(t *testing.T) {
	taint := resources.ControlPlaneTaint + ":NoSchedule"
	set := setTaints("kubectl", "m0", []any{taint}, nil)
	if !strings.Contains(set, "kubectl taint node 'm0' '"+taint+"' --overwrite") || strings.Contains(set, "-'") {
		t.Errorf("setting the taint: %q", set)
	}
	if kept := setTaints("kubectl", "m0", []any{taint}, []any{taint}); kept != set {
		t.Errorf("a kept taint: %q, want the same as setting it", kept)
	}
	drop := setTaints("kubectl", "m0", nil, []any{taint})
	if !strings.Contains(drop, "grep -qxF '"+resources.ControlPlaneTaint+"'; then kubectl taint node 'm0' '"+taint+"-'") {
		t.Errorf("dropping the taint: %q", drop)
	}
	if none := setTaints("kubectl", "w0", nil, nil); none != "" {
		t.Errorf("a worker's taints: %q, want nothing", none)
	}
	// A taint with a value: set whole, removed by key and effect (kubectl
	// refuses a value in a removal); a new value for a key and effect
	// replaces the old one, which is then not removed.
	gpu := "dedicated=gpu:NoSchedule"
	if drop := setTaints("kubectl", "w0", nil, []any{gpu}); !strings.Contains(drop, "kubectl taint node 'w0' 'dedicated:NoSchedule-'") {
		t.Errorf("dropping %s: %q", gpu, drop)
	}
	moved := setTaints("kubectl", "w0", []any{"dedicated=ml:NoSchedule"}, []any{gpu})
	if !strings.Contains(moved, "'dedicated=ml:NoSchedule' --overwrite") || strings.Contains(moved, "NoSchedule-") {
		t.Errorf("another value for dedicated:NoSchedule: %q, want it set and nothing removed", moved)
	}
}

// A node's taints are registered by its kubelet and kept by its k8s_node
// after a master's control-plane taint; its provider_id is the kubelet's
// --provider-id and k8s_node's provider_id, which the plan refuses to
// change once the Node has one, and Read brings back.
func TestNodeTaintsAndProviderID(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.36.5", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes: []resources.Node{
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}, Taints: []string{"tier=db:NoExecute"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}, Taints: []string{"dedicated:NoSchedule"}, ProviderID: "eggo://ns/h1/uid-1"},
		}}
	ds, err := K8sNode{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m0": "[" + resources.ControlPlaneTaint + ":NoSchedule tier=db:NoExecute]", "w0": "[dedicated:NoSchedule]"}
	for _, d := range ds {
		if got := fmt.Sprint(d.Attrs[k8sNodeTaints]); got != want[d.Node] {
			t.Errorf("%s keeps taints %s, want %s", d.Addr, got, want[d.Node])
		}
	}
	if ds[1].Attrs[k8sNodeProviderID] != "eggo://ns/h1/uid-1" || ds[0].Attrs[k8sNodeProviderID] != nil {
		t.Errorf("provider IDs %v and %v: want w0's only", ds[0].Attrs[k8sNodeProviderID], ds[1].Attrs[k8sNodeProviderID])
	}
	unit := func(n resources.Node) string { return resources.AttrString(Kubelet(c, n).desired(c, n).Attrs[svcUnit]) }
	m0, w0 := unit(c.Nodes[0]), unit(c.Nodes[1])
	if !strings.Contains(m0, "--register-with-taints="+resources.ControlPlaneTaint+"=:NoSchedule,tier=db:NoExecute") || strings.Contains(m0, "--provider-id") {
		t.Errorf("m0's kubelet: %s", m0)
	}
	if !strings.Contains(w0, "--register-with-taints=dedicated=:NoSchedule") || !strings.Contains(w0, "--provider-id=eggo://ns/h1/uid-1") {
		t.Errorf("w0's kubelet: %s", w0)
	}

	// The plan: the same ID, or one recorded as none, is no change of ID;
	// another is refused, naming the node and both.
	prior := resources.Object{Addr: ds[1].Addr, Kind: "k8s_node", Node: "w0", Attrs: resources.Attrs(resources.Normalize(map[string]any(ds[1].Attrs)).(map[string]any))}
	if _, err := (K8sNode{}).Plan(context.Background(), nil, &prior, ds[1]); err != nil {
		t.Errorf("the same provider ID: %v", err)
	}
	other := ds[1]
	other.Attrs = resources.Attrs{}
	for k, v := range ds[1].Attrs {
		other.Attrs[k] = v
	}
	other.Attrs[k8sNodeProviderID] = "eggo://ns/h2/uid-2"
	_, err = (K8sNode{}).Plan(context.Background(), nil, &prior, other)
	if err == nil || !strings.Contains(err.Error(), `"eggo://ns/h2/uid-2", but the Node was registered as "eggo://ns/h1/uid-1"`) ||
		!strings.Contains(err.Error(), "remove node w0") {
		t.Errorf("another provider ID: %v", err)
	}
	if s := setProviderID("kubectl", "w0", "eggo://ns/h1/uid-1"); !strings.Contains(s, `patch node 'w0' --type=merge -p '{"spec":{"providerID":"eggo://ns/h1/uid-1"}}'`) {
		t.Errorf("setting the provider ID: %q", s)
	}

	// Read brings back the Node's providerID for a record that has one.
	fakeKubectl(t, "m0", "w0=10.244.0.0/24=<none>=eggo://ns/h9/uid-9")
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	local := k8sNodeObjects("w0")[0] // through a local master
	local.Attrs[k8sNodeProviderID] = "eggo://ns/h1/uid-1"
	live, _, err := K8sNode{}.Read(context.Background(), rc, local)
	if err != nil || live[k8sNodeProviderID] != "eggo://ns/h9/uid-9" {
		t.Errorf("Read: provider_id %v, %v; want the Node's", live[k8sNodeProviderID], err)
	}
}

// Read brings back each Node's podCIDR for a record that has one: a Node
// that lost it (re-registered) reads "", so the plan sets it again, and
// podSubnetMoves refuses a Node whose podCIDR differs from the state's.
func TestK8sNodeReadSeesPodCIDR(t *testing.T) {
	fakeKubectl(t, "m0", "w0=10.244.0.0/24", "w1", "w2=10.244.9.0/24")
	objs := k8sNodeObjects("w0", "w1", "w2")
	subnets := map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24", "w2": "10.244.2.0/24"}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	for _, o := range objs {
		o.Attrs[AttrPodSubnet] = subnets[o.Node]
		live, _, err := K8sNode{}.Read(context.Background(), rc, o)
		if err != nil {
			t.Fatal(err)
		}
		desired := resources.Attrs{AttrPodSubnet: subnets[o.Node]}
		moved := podSubnetMoves(o.Addr, live, desired)
		switch o.Node {
		case "w0":
			if live[AttrPodSubnet] != "10.244.0.0/24" || moved != nil {
				t.Errorf("w0: read %v, %v; want its podCIDR, no move", live[AttrPodSubnet], moved)
			}
		case "w1":
			if live[AttrPodSubnet] != "" || moved != nil {
				t.Errorf("w1 (no podCIDR): read %q, %v; want \"\" and a plan that sets it", live[AttrPodSubnet], moved)
			}
		case "w2":
			if moved == nil || !strings.Contains(moved.Error(), "k8s_node.w2") || !strings.Contains(moved.Error(), "10.244.9.0/24") {
				t.Errorf("w2 (another podCIDR): %v; want a refusal naming the node and both subnets", moved)
			}
		}
	}
}

// TestK8sNodeWaitsForTheAPIItUses: every Node is labelled through the
// first master's apiserver, so each k8s_node waits for that apiserver — in
// the pod implementation a master's kubelet is healthy before any
// apiserver serves (a 3-master deploy labelled m1 through m0's apiserver
// before it started) — and a new Node's labelling waits for it to register.
func TestK8sNodeWaitsForTheAPIItUses(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes", Implementation: resources.ImplementationPod,
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes: []resources.Node{
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "m1", Address: "10.0.0.12", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}},
		}}
	ds, err := K8sNode{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if !strings.Contains(strings.Join(d.DependsOn, " "), `service.kube-apiserver["m0"]`) {
			t.Errorf("%s waits for %v, not for the apiserver it labels through", d.Addr, d.DependsOn)
		}
	}
	if got := registered("kubectl", "m1", true); !strings.Contains(got, "get node 'm1' -o name") {
		t.Errorf("a new Node's labelling does not wait for it: %q", got)
	}
	if got := registered("kubectl", "m1", false); got != "" {
		t.Errorf("a labelled Node's update waits: %q", got)
	}
}

// TestKubeletEvictionHard: runtime.eviction_hard becomes the kubelet's
// evictionHard, sorted, and image_gc_high_percent its
// imageGCHighThresholdPercent; without them the configuration says
// nothing of them (the kubelet's defaults).
func TestKubeletEvictionHard(t *testing.T) {
	c := &resources.Cluster{ConfigDir: "/etc/kubernetes", Network: resources.Network{ServiceCIDR: "10.32.0.0/16"}}
	if got := kubeletConfig(c); strings.Contains(got, "eviction") {
		t.Errorf("no eviction_hard, and the kubelet's configuration has:\n%s", got)
	}
	c.Runtime.EvictionHard = map[string]string{"nodefs.available": "1Gi", "imagefs.available": "5%"}
	if got := kubeletConfig(c); !strings.HasSuffix(got, "evictionHard:\n  imagefs.available: \"5%\"\n  nodefs.available: \"1Gi\"\n") {
		t.Errorf("the kubelet's configuration with eviction_hard:\n%s", got)
	}
	c.Runtime.ImageGCHighPercent = 100
	if got := kubeletConfig(c); !strings.HasSuffix(got, "\nimageGCHighThresholdPercent: 100\n") || strings.Contains(got, "imageGCLow") {
		t.Errorf("the kubelet's configuration with image_gc_high_percent = 100 (and no low):\n%s", got)
	}
}
