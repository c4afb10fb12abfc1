package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
	"github.com/eggo-project/eggo/state"
)

// writeWorkers writes a cluster of one master and the given workers
// (named w0 … w9).
func writeWorkers(t *testing.T, dir, podCIDR string, workers ...string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `cluster "c" {
  kubernetes_version = "1.31.4"
  network { pod_cidr = %q }
}
connection {
  user             = "root"
  private_key_file = "/nonexistent/id_ed25519"
  known_hosts_file = "/nonexistent/known_hosts"
}
node "m0" {
  address = "10.0.0.10"
  roles   = ["master", "etcd"]
}
`, podCIDR)
	for _, w := range workers { // wN is at 10.0.0.2N
		fmt.Fprintf(&b, "node %q {\n  address = \"10.0.0.2%s\"\n  roles   = [\"worker\"]\n}\n", w, strings.TrimPrefix(w, "w"))
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// planSteps makes a plan without refresh (no host is reachable here).
func planSteps(t *testing.T, o Request) map[string]*Step {
	t.Helper()
	p, _, err := planWith(t, o)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]*Step{}
	for _, s := range p.Steps {
		steps[s.Addr] = s
	}
	return steps
}

// recordKinds writes a state holding the plan's resources of the given
// kinds as applied; edit may change each before it is written.
func recordKinds(t *testing.T, path string, steps map[string]*Step, edit func(*state.Resource), kinds ...string) {
	t.Helper()
	st := state.New()
	st.Serial = 1
	for _, s := range steps {
		if !slices.Contains(kinds, s.Kind) || s.After == nil {
			continue
		}
		attrs := map[string]any{}
		for k, v := range s.After {
			if _, unknown := v.(resources.Unknown); !unknown {
				attrs[k] = v
			}
		}
		if s.Kind == "service" {
			attrs["created_dirs"], attrs["owned_data"] = []any{}, []any{}
		}
		r := state.Resource{Address: s.Addr, Kind: s.Kind, Node: s.Node, Attributes: attrs}
		if edit != nil {
			edit(&r)
		}
		st.Resources = append(st.Resources, r)
	}
	if err := state.NewStore(path).Write(st); err != nil {
		t.Fatal(err)
	}
}

func podSubnetOf(t *testing.T, steps map[string]*Step, node string) string {
	t.Helper()
	s := steps[kube.K8sNodeAddr(node)]
	if s == nil || s.After == nil {
		t.Fatalf("no k8s_node planned for %s", node)
	}
	v, _ := s.After[kube.AttrPodSubnet].(string)
	return v
}

// othersUntouched fails the test for any step of a node other than those
// given whose planned attributes differ between two plans: a join or a
// removal changes only the nodes it names. (The state here holds no
// certificates, so actions would show every service with a certificate as
// changing; what the configuration asks of each node is what must hold.)
func othersUntouched(t *testing.T, what string, before, after map[string]*Step, nodes ...string) {
	t.Helper()
	for addr, s := range after {
		if s.Node == "" || slices.Contains(nodes, s.Node) {
			continue
		}
		b := before[addr]
		switch {
		case b == nil || b.Desired == nil:
			t.Errorf("%s: %s is new", what, addr)
		case s.Desired == nil:
			t.Errorf("%s: %s goes", what, addr)
		case fmt.Sprint(b.Desired.Attrs, b.Desired.DependsOn) != fmt.Sprint(s.Desired.Attrs, s.Desired.DependsOn):
			t.Errorf("%s: %s changes:\nbefore %v\nafter  %v", what, addr, b.Desired, s.Desired)
		}
	}
}

// A plan reads the pod subnets the state records before it expands: a
// worker removed from the middle moves no other worker's subnet and
// changes nothing of theirs, and a worker added takes the lowest free
// subnet, again changing only its own resources.
func TestPlanKeepsPodSubnets(t *testing.T) {
	dir := t.TempDir()
	o := Request{Dir: dir, StatePath: filepath.Join(dir, "eggo.state")}
	writeWorkers(t, dir, "10.244.0.0/16", "w0", "w1", "w2")
	first := planSteps(t, o)
	// The master is a Node too, declared first: it has the first subnet.
	for node, want := range map[string]string{"m0": "10.244.0.0/24", "w0": "10.244.1.0/24", "w1": "10.244.2.0/24", "w2": "10.244.3.0/24"} {
		if got := podSubnetOf(t, first, node); got != want {
			t.Errorf("first plan: %s gets %s, want %s", node, got, want)
		}
	}
	recordKinds(t, o.StatePath, first, nil, "service", "k8s_node")

	writeWorkers(t, dir, "10.244.0.0/16", "w0", "w2")
	removed := planSteps(t, o)
	if got := podSubnetOf(t, removed, "w2"); got != "10.244.3.0/24" {
		t.Errorf("w1 removed: w2 moved to %s", got)
	}
	othersUntouched(t, "w1 removed", first, removed, "w1")
	if a := removed[resources.ServiceAddr(resources.CompFlannel, "w1")].Action; a != resources.Delete {
		t.Errorf("w1 removed: its flanneld is %s, want delete", a)
	}

	writeWorkers(t, dir, "10.244.0.0/16", "w3", "w0", "w2", "w4")
	added := planSteps(t, o)
	for node, want := range map[string]string{"m0": "10.244.0.0/24", "w0": "10.244.1.0/24", "w2": "10.244.3.0/24", "w3": "10.244.2.0/24", "w4": "10.244.4.0/24"} {
		if got := podSubnetOf(t, added, node); got != want {
			t.Errorf("w3 and w4 added: %s gets %s, want %s", node, got, want)
		}
	}
	othersUntouched(t, "w3 and w4 added", removed, added, "w1", "w3", "w4")

	// A recorded subnet outside a changed pod_cidr would have to move, and
	// a Node's podCIDR cannot: the plan is refused, naming the node.
	writeWorkers(t, dir, "10.250.0.0/16", "w0", "w2")
	_, _, err := planWith(t, o)
	if err == nil || !strings.Contains(err.Error(), "k8s_node.m0") || !strings.Contains(err.Error(), "podCIDR cannot change") {
		t.Errorf("pod_cidr changed under recorded subnets: %v", err)
	}
}

// routesCleanup4869f8e is the routes service's cleanup as the eggo before
// flannel made it for an IPv4 pod network.
const routesCleanup4869f8e = "ip -4 route flush proto 77 2>/dev/null\niptables -t nat -D POSTROUTING -j EGGO-POD-MASQ 2>/dev/null\n" +
	"iptables -t nat -F EGGO-POD-MASQ 2>/dev/null && iptables -t nat -X EGGO-POD-MASQ\niptables -D FORWARD -j EGGO-POD-FWD 2>/dev/null\n" +
	"iptables -F EGGO-POD-FWD 2>/dev/null && iptables -X EGGO-POD-FWD\n" +
	"if [ -f /run/eggo-pod-routes/forward.before ]; then cat /run/eggo-pod-routes/forward.before > /proc/sys/net/ipv4/ip_forward; fi\n" +
	"rm -rf /run/eggo-pod-routes\ntrue"

// A state written before flannel: each worker's subnet is on its containerd
// service and each worker has a routes service. The plan keeps the subnets
// (now on the k8s_node), deletes the routes services and adds flanneld.
func TestPlanMovesOffTheRoutesService(t *testing.T) {
	dir := t.TempDir()
	o := Request{Dir: dir, StatePath: filepath.Join(dir, "eggo.state")}
	writeWorkers(t, dir, "10.244.0.0/16", "w0", "w1")
	steps := planSteps(t, o)
	legacy := map[string]string{"w0": "10.244.5.0/24", "w1": "10.244.0.0/24"}
	for node := range legacy { // the routes services, from the flanneld ones' shape
		old := *steps[resources.ServiceAddr(resources.CompFlannel, node)]
		old.Addr = resources.ServiceAddr(resources.CompPodRoutes, node)
		steps[old.Addr] = &old
	}
	recordKinds(t, o.StatePath, steps, func(r *state.Resource) {
		switch {
		case r.Kind == "k8s_node":
			delete(r.Attributes, kube.AttrPodSubnet)
		case r.Address == resources.ServiceAddr(resources.CompContainerd, r.Node):
			r.Attributes[kube.AttrPodSubnet] = legacy[r.Node]
		case r.Address == resources.ServiceAddr(resources.CompPodRoutes, r.Node):
			// What the eggo before flannel recorded (4869f8e: podnet.go).
			routes := "/etc/kubernetes/" + resources.CompPodRoutes + "/routes.sh"
			r.Attributes["component"] = resources.CompPodRoutes
			r.Attributes["unit_name"] = resources.CompPodRoutes + ".service"
			r.Attributes["file_modes"] = map[string]any{routes: "0755"}
			r.Attributes["file_digests"] = map[string]any{routes: strings.Repeat("0", 64)}
			r.Attributes["cleanup"] = routesCleanup4869f8e
		}
	}, "service", "k8s_node")
	// (the state's flanneld records stand for nothing: drop them)
	st, err := state.NewStore(o.StatePath).Read()
	if err != nil {
		t.Fatal(err)
	}
	st.Resources = slices.DeleteFunc(st.Resources, func(r state.Resource) bool { return strings.Contains(r.Address, resources.CompFlannel) })
	if err := state.NewStore(o.StatePath).Write(st); err != nil {
		t.Fatal(err)
	}

	p := planSteps(t, o)
	for node, subnet := range legacy {
		if got := podSubnetOf(t, p, node); got != subnet {
			t.Errorf("%s: pod subnet %s, want the one its containerd recorded, %s", node, got, subnet)
		}
		if a := p[kube.K8sNodeAddr(node)].Action; a != resources.Update {
			t.Errorf("%s: %s, want an update (its Node gets its podCIDR)", kube.K8sNodeAddr(node), a)
		}
		if s := p[resources.ServiceAddr(resources.CompPodRoutes, node)]; s.Action != resources.Delete || len(s.Reasons) != 2 || s.Reasons[1].Code != resources.ReasonInterrupts {
			t.Errorf("%s: routes service %s %v, want a delete that says it interrupts pod traffic", node, s.Action, s.Reasons)
		}
		if a := p[resources.ServiceAddr(resources.CompFlannel, node)].Action; a != resources.Create {
			t.Errorf("%s: flanneld %s, want create", node, a)
		}
	}
}
