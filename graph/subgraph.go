package graph

import "fmt"

// Reverse returns a copy with every edge flipped and the same insertion
// order: destroy runs a dependent before what it depends on.
func (g *Graph) Reverse() *Graph {
	r := New()
	for _, name := range g.names {
		r.Add(name)
	}
	g.edges(func(dependency, dependent int64) {
		r.setEdge(dependent, dependency)
	})
	return r
}

// WithDependencies returns the subgraph holding targets and everything they
// depend on, directly or not, in the original insertion order. For the
// vertices that depend on targets (destroy -target), use
// g.Reverse().WithDependencies(targets).
func (g *Graph) WithDependencies(targets []string) (*Graph, error) {
	keep := make([]bool, len(g.names))
	var stack []int64
	for _, t := range targets {
		id, ok := g.ids[t]
		if !ok {
			return nil, fmt.Errorf("unknown target %s", t)
		}
		if !keep[id] {
			keep[id] = true
			stack = append(stack, id)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range g.deps[v] {
			if !keep[d] {
				keep[d] = true
				stack = append(stack, int64(d))
			}
		}
	}

	sub := New()
	newID := make([]int64, len(g.names))
	for id, name := range g.names {
		if keep[id] {
			newID[id] = int64(sub.Len())
			sub.Add(name)
		}
	}
	g.edges(func(dependency, dependent int64) {
		if keep[dependency] && keep[dependent] {
			sub.setEdge(newID[dependency], newID[dependent])
		}
	})
	return sub, nil
}
