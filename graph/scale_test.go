package graph

import (
	"context"
	"testing"
	"time"
)

// TestScale30k guards the promise that a 30,000-vertex, 100,000-edge graph
// orders and walks in well under a second (each takes tens of milliseconds
// here; the bound leaves room for a loaded machine).
func TestScale30k(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test: skipped with -short and under the race detector")
	}
	g := bigGraph(t)

	begin := time.Now()
	order, err := g.TopoOrder()
	if err != nil || len(order) != g.Len() {
		t.Fatalf("TopoOrder: %d vertices, %v", len(order), err)
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("TopoOrder took %v", took)
	}

	begin = time.Now()
	res := g.Walk(context.Background(), WalkOptions{}, func(context.Context, string) error { return nil })
	if len(res.Done) != g.Len() {
		t.Fatalf("walked %d of %d", len(res.Done), g.Len())
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("Walk took %v", took)
	}
}
