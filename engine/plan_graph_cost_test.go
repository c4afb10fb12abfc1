package engine

import (
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestPlanGraphCostPerResource: the plan's graph is built in maps and
// lists sized for its resources and edges from the start, with no copy of
// each resource's dependencies, so it costs about one allocation a
// resource however large the plan (a map growing by doubling reallocates
// over and over at thousands of resources): 3.1 allocations a resource at
// 1,000 before, 1.05 now (the one left: the list of what each resource
// waits for).
func TestPlanGraphCostPerResource(t *testing.T) {
	cost := func(n int) float64 {
		ds := refPlan(n)
		want := make(map[string]*resources.Desired, len(ds))
		for i := range ds {
			ds[i].DependsOn = []string{"test.ca"}
			want[ds[i].Addr] = &ds[i]
		}
		ds[0].DependsOn = nil
		refs := refsByAddr(want)
		return testing.AllocsPerRun(3, func() {
			if _, err := planGraph(want, nil, refs); err != nil {
				t.Fatal(err)
			}
		}) / float64(n)
	}
	small, large := cost(100), cost(1000)
	t.Logf("allocations per resource: %.2f at 100, %.2f at 1,000", small, large)
	if large > 1.1 || large > small {
		t.Errorf("%.2f allocations per resource to build the graph of 1,000 (%.2f at 100): want at most 1.1, no more than at 100", large, small)
	}
}
