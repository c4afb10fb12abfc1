package graph

import (
	"fmt"
	"testing"
)

// TestConnectCostPerEdgeIsSmall: building a graph costs under one
// allocation per vertex and edge (0.44 today: a vertex's list of
// dependencies growing), the same for 1,000 vertices as for 10,000, and
// reading a vertex's dependencies costs one (the list it returns). A plan
// of 1,000 nodes connects tens of thousands of edges; gonum's nested maps
// stored them at 2.8 allocations each, 3.2 at 10,000, and read them at 5.
func TestConnectCostPerEdgeIsSmall(t *testing.T) {
	const fanIn = 6
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("service.v%05d", i)
		}
		return out
	}
	cost := func(n int) (perEdge, perRead float64) {
		vs := names(n)
		var g *Graph
		build := testing.AllocsPerRun(3, func() {
			g = New()
			for _, v := range vs {
				g.Add(v)
			}
			for i := fanIn; i < n; i++ {
				for d := 1; d <= fanIn; d++ {
					if err := g.Connect(vs[i], vs[i-1-d*37%i]); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
		read := testing.AllocsPerRun(3, func() {
			for _, v := range vs {
				g.DependenciesOf(v)
			}
		})
		return build / float64(len(g.edgeList)+n), read / float64(n)
	}
	smallEdge, smallRead := cost(1000)
	edge, read := cost(10000)
	t.Logf("allocations per vertex and edge built: %.3f at 1,000 vertices, %.3f at 10,000; per DependenciesOf: %.2f, %.2f", smallEdge, edge, smallRead, read)
	if edge > 0.6 || edge > 1.1*smallEdge {
		t.Errorf("%.3f allocations per vertex and edge at 10,000 vertices (%.3f at 1,000): want at most 0.6, flat", edge, smallEdge)
	}
	if read > 1 {
		t.Errorf("DependenciesOf costs %.2f allocations, want 1", read)
	}
}
