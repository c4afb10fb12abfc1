package kube

import (
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestNoOpServicePlanBuildsNoRecord: a service whose record matches the
// config is planned from its file digests alone. A no-op keeps the prior
// record as After, so the recorded form (a copy of every attribute and a
// map of file modes) is built only for a change: most of a thousand-node
// plan's services are no-ops. 32 allocations before, 22 now.
func TestNoOpServicePlanBuildsNoRecord(t *testing.T) {
	d := testService("1.31.4", "a: 1\n", "CERT")
	prior := recorded(d, healthyLive(d))
	schema := serviceSchema()
	if ch := planOf(t, prior, d); ch.Action != resources.NoOp {
		t.Fatalf("planned %s (%s), want a no-op", ch.Action, reasonText(ch))
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := planService(schema, prior, d); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations per no-op service plan", allocs)
	if allocs > 22 {
		t.Errorf("%.0f allocations to plan a service that does not change: want at most 22", allocs)
	}
}
