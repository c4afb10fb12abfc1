package config

import (
	"fmt"
	"strings"
	"testing"
)

// bigDefinition is a cluster of 1000 workers from one for_each over a
// 1000-entry map literal, plus three masters they all depend on.
func bigDefinition(workers int) string {
	var b strings.Builder
	b.WriteString(minimal)
	b.WriteString(`
node "master" {
  count   = 3
  address = cidrhost("10.0.0.0/24", 10 + count.index)
  roles   = ["master", "etcd"]
}

node "worker" {
  for_each   = {
`)
	for i := 0; i < workers; i++ {
		fmt.Fprintf(&b, "    w%04d = \"10.1.%d.%d\"\n", i, i/250, i%250+1)
	}
	b.WriteString(`  }
  address    = each.value
  roles      = ["worker"]
  labels     = { index = each.key, master = node.master[0].address }
  depends_on = [node.master]
}
`)
	return b.String()
}

func BenchmarkLoad1000Nodes(b *testing.B) {
	dir := writeDir(b, map[string]string{"main.hcl": bigDefinition(1000)})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg, diags := Load(dir, VarInput{})
		if diags.HasErrors() || len(cfg.Cluster.Nodes) != 1003 {
			b.Fatalf("load failed: %v", diags)
		}
	}
}

// TestLoadScalesLinearly guards BenchmarkLoad1000Nodes's shape in ordinary
// test runs by counting allocations, which a loaded machine does not
// change: twice the nodes may cost little more than twice the allocations
// (a cost quadratic in nodes would be four times). Time is for make bench.
func TestLoadScalesLinearly(t *testing.T) {
	allocs := func(workers int) float64 {
		dir := writeDir(t, map[string]string{"main.hcl": bigDefinition(workers)})
		return testing.AllocsPerRun(1, func() { Load(dir, VarInput{}) })
	}
	small, large := allocs(1000), allocs(2000)
	t.Logf("allocations: %.0f for 1000 workers, %.0f for 2000", small, large)
	if large > 2.3*small {
		t.Errorf("Load allocates %.0f times for 1000 workers and %.0f for 2000: more than linear", small, large)
	}
	dir := writeDir(t, map[string]string{"main.hcl": bigDefinition(1000)})
	cfg := mustLoad(t, dir, VarInput{})
	last := cfg.Cluster.Nodes[len(cfg.Cluster.Nodes)-1]
	if last.Name != "w0999" || last.Address != "10.1.3.250" || len(last.DependsOn) != 3 || last.Labels["master"] != "10.0.0.10" {
		t.Fatalf("last node = %+v", last)
	}
}
