package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
func planSteps(t *testing.T, o Options) map[string]*Step {
	t.Helper()
	loaded, diags := LoadConfig(o)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, err := MakePlan(context.Background(), o, loaded)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]*Step{}
	for _, s := range p.Steps {
		steps[s.Addr] = s
	}
	return steps
}

// recordServices writes a state holding the plan's services as applied.
func recordServices(t *testing.T, path string, steps map[string]*Step) {
	t.Helper()
	st := state.New()
	st.Serial = 1
	for _, s := range steps {
		if s.Kind != "service" || s.After == nil {
			continue
		}
		attrs := map[string]any{}
		for k, v := range s.After {
			if _, unknown := v.(resources.Unknown); !unknown {
				attrs[k] = v
			}
		}
		attrs["created_dirs"], attrs["owned_data"] = []any{}, []any{}
		st.Resources = append(st.Resources, state.Resource{Address: s.Addr, Kind: s.Kind, Node: s.Node, Attributes: attrs})
	}
	if err := state.NewStore(path).Write(st); err != nil {
		t.Fatal(err)
	}
}

func podSubnetOf(t *testing.T, steps map[string]*Step, node string) string {
	t.Helper()
	s := steps[resources.ServiceAddr(resources.CompContainerd, node)]
	if s == nil || s.After == nil {
		t.Fatalf("no containerd planned on %s", node)
	}
	v, _ := s.After[kube.AttrPodSubnet].(string)
	return v
}

// A plan reads the pod subnets the state records before it expands: a
// worker removed from the middle moves no other worker's subnet (its
// containerd is untouched, the other workers' routes change), and a worker
// added takes the lowest free subnet.
func TestPlanKeepsPodSubnets(t *testing.T) {
	dir := t.TempDir()
	o := Options{Dir: dir, StatePath: filepath.Join(dir, "eggo.state"), NoRefresh: true}
	writeWorkers(t, dir, "10.244.0.0/16", "w0", "w1", "w2")
	first := planSteps(t, o)
	for node, want := range map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24", "w2": "10.244.2.0/24"} {
		if got := podSubnetOf(t, first, node); got != want {
			t.Errorf("first plan: %s gets %s, want %s", node, got, want)
		}
	}
	recordServices(t, o.StatePath, first)

	writeWorkers(t, dir, "10.244.0.0/16", "w0", "w2")
	removed := planSteps(t, o)
	if got := podSubnetOf(t, removed, "w2"); got != "10.244.2.0/24" {
		t.Errorf("w1 removed: w2 moved to %s", got)
	}
	if a := removed[resources.ServiceAddr(resources.CompContainerd, "w2")].Action; a != resources.NoOp {
		t.Errorf("w1 removed: w2's containerd is %s, want no-op", a)
	}
	for _, node := range []string{"w0", "w2"} {
		s := removed[resources.ServiceAddr(resources.CompPodRoutes, node)]
		if s.Action != resources.Update || !strings.Contains(fmt.Sprint(s.Reasons), "routes.sh") {
			t.Errorf("w1 removed: %s is %s (%v), want its routes script updated", s.Addr, s.Action, s.Reasons)
		}
	}
	if a := removed[resources.ServiceAddr(resources.CompPodRoutes, "w1")].Action; a != resources.Delete {
		t.Errorf("w1 removed: its routes are %s, want delete", a)
	}

	writeWorkers(t, dir, "10.244.0.0/16", "w3", "w0", "w2", "w4")
	added := planSteps(t, o)
	for node, want := range map[string]string{"w0": "10.244.0.0/24", "w2": "10.244.2.0/24", "w3": "10.244.1.0/24", "w4": "10.244.3.0/24"} {
		if got := podSubnetOf(t, added, node); got != want {
			t.Errorf("w3 and w4 added: %s gets %s, want %s", node, got, want)
		}
	}

	// A recorded subnet outside a changed pod_cidr is given up; the plan
	// shows pod_subnet changing on that worker's containerd.
	writeWorkers(t, dir, "10.250.0.0/16", "w0", "w2")
	moved := planSteps(t, o)
	s := moved[resources.ServiceAddr(resources.CompContainerd, "w2")]
	if got := podSubnetOf(t, moved, "w2"); got != "10.250.1.0/24" || s.Action != resources.Update || !strings.Contains(strings.Join(s.Changed, " "), kube.AttrPodSubnet) {
		t.Errorf("pod_cidr changed: w2 gets %s, %s changing %v", got, s.Action, s.Changed)
	}
}
