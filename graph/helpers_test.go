package graph

import "testing"

// dependentsOf returns the vertices that directly depend on name, sorted;
// an unknown name has none. Only tests ask (the engine walks the graph).
func dependentsOf(g *Graph, name string) []string {
	id, ok := g.ids[name]
	if !ok {
		return nil
	}
	return g.sortedNames(g.g.From(id))
}

// edge is "from depends on to".
type edge struct{ from, to string }

// build adds names in order, then connects edges, failing the test on error.
func build(t testing.TB, names []string, edges []edge) *Graph {
	t.Helper()
	g := New()
	for _, n := range names {
		g.Add(n)
	}
	for _, e := range edges {
		if err := g.Connect(e.from, e.to); err != nil {
			t.Fatalf("Connect(%s, %s): %v", e.from, e.to, err)
		}
	}
	return g
}
