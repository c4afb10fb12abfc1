package graph

import (
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// TopoOrder returns every vertex with dependencies before their dependents.
// Ties are broken by insertion order: of the vertices whose dependencies are
// all placed, the earliest-added comes next. That is also the order Walk
// runs them in with Parallelism 1. A dependency cycle returns a *CycleError.
func (g *Graph) TopoOrder() ([]string, error) {
	ids := g.adjacency().order()
	if len(ids) < g.Len() {
		return nil, g.cycles()
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = g.names[id]
	}
	return out, nil
}

// Validate reports a dependency cycle as a *CycleError, or nil.
func (g *Graph) Validate() error {
	if len(g.adjacency().order()) < g.Len() {
		return g.cycles()
	}
	return nil
}

// cycles finds the strongly connected components with gonum (self edges are
// refused by Connect, so every component of two or more is a cycle). Only
// a graph that has a cycle comes here: it is copied into gonum's form then.
func (g *Graph) cycles() *CycleError {
	dg := simple.NewDirectedGraph()
	for id := range g.names {
		dg.AddNode(simple.Node(id))
	}
	for _, e := range g.edgeList {
		dg.SetEdge(simple.Edge{F: simple.Node(e.dependency), T: simple.Node(e.dependent)})
	}
	var cyclic [][]int64
	for _, comp := range topo.TarjanSCC(dg) {
		if len(comp) < 2 {
			continue
		}
		ids := make([]int64, len(comp))
		for i, n := range comp {
			ids[i] = n.ID()
		}
		cyclic = append(cyclic, ids)
	}
	return g.cycleError(cyclic)
}
