package graph

import (
	"cmp"
	"errors"
	"slices"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/topo"
)

// TopoOrder returns every vertex with dependencies before their dependents.
// The order is a pure function of the vertices' insertion order and edges
// (gonum's SortStabilized with ties broken by insertion order), so the same
// graph built the same way always yields the same order.
// A dependency cycle returns a *CycleError.
func (g *Graph) TopoOrder() ([]string, error) {
	sorted, err := topo.SortStabilized(g.g, byInsertion)
	if err != nil {
		var unorderable topo.Unorderable
		if errors.As(err, &unorderable) {
			return nil, g.cycleError(unorderable)
		}
		return nil, err
	}
	out := make([]string, len(sorted))
	for i, n := range sorted {
		out[i] = g.names[n.ID()]
	}
	return out, nil
}

// Validate reports a dependency cycle as a *CycleError, or nil.
func (g *Graph) Validate() error {
	_, err := g.TopoOrder()
	return err
}

// byInsertion orders gonum nodes by id, which is the insertion index.
func byInsertion(nodes []gonum.Node) {
	slices.SortFunc(nodes, func(a, b gonum.Node) int { return cmp.Compare(a.ID(), b.ID()) })
}
