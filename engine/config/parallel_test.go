package config

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestLargeNodeBlockLoadsAsInOrder: 300 instances evaluated on every core
// give the nodes, and the errors, in the order of the for_each.
func TestLargeNodeBlockLoadsAsInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	def := bigDefinition(300)
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": def}), VarInput{})
	var names []string
	for _, n := range cfg.Cluster.Nodes {
		names = append(names, n.Name)
	}
	if len(names) != 303 || names[3] != "w0000" || names[302] != "w0299" || cfg.Cluster.Nodes[100].Labels["index"] != "w0097" {
		t.Fatalf("nodes: %d, %v … %v", len(names), names[:5], names[len(names)-2:])
	}
	bad := strings.Replace(strings.Replace(def, `w0070 = "10.1.0.71"`, `w0070 = "10.1.0.71 x"`, 1), `w0250 = "10.1.1.1"`, `w0250 = "not an/address"`, 1)
	_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": bad}), VarInput{})
	var got []string
	for _, d := range diags {
		got = append(got, d.Detail)
	}
	if len(got) != 2 || !strings.Contains(got[0], `node.worker["w0070"]`) || !strings.Contains(got[1], `node.worker["w0250"]`) {
		t.Fatalf("errors, want w0070's then w0250's:\n%s", fmt.Sprint(strings.Join(got, "\n")))
	}
}
