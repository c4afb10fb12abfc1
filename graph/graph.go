package graph

import (
	"fmt"
	"slices"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
)

// Graph is a directed graph of named vertices. Internally a gonum edge runs
// from a dependency to its dependent (the direction work flows), so gonum's
// topological sort yields dependencies first.
type Graph struct {
	g     *simple.DirectedGraph
	names []string         // vertex id → name; the id is the insertion index
	ids   map[string]int64 // name → vertex id

	// edgeList repeats gonum's edges in the order they were added. Scanning
	// gonum's nested maps costs tens of milliseconds at 100,000 edges; the
	// order and walk hot paths read this flat copy instead.
	edgeList []idEdge
}

// idEdge is one edge as (dependency id, dependent id).
type idEdge struct{ dependency, dependent int32 }

// New returns an empty graph.
func New() *Graph {
	return &Graph{g: simple.NewDirectedGraph(), ids: map[string]int64{}}
}

// Add adds a vertex. Adding a name that is already present does nothing, so
// the vertex keeps its first insertion position.
func (g *Graph) Add(name string) {
	if _, ok := g.ids[name]; ok {
		return
	}
	id := int64(len(g.names))
	g.names = append(g.names, name)
	g.ids[name] = id
	g.g.AddNode(simple.Node(id))
}

// Connect records that from depends on to: to runs before from. Connecting
// the same pair twice is harmless. Both vertices must already exist.
func (g *Graph) Connect(from, to string) error {
	if from == to {
		// gonum panics on self edges; a self dependency is a user error.
		return fmt.Errorf("%s depends on itself", from)
	}
	fromID, ok := g.ids[from]
	if !ok {
		return fmt.Errorf("cannot make %s depend on %s: unknown vertex %s", from, to, from)
	}
	toID, ok := g.ids[to]
	if !ok {
		return fmt.Errorf("cannot make %s depend on %s: unknown vertex %s", from, to, to)
	}
	if g.g.HasEdgeFromTo(toID, fromID) {
		return nil
	}
	g.setEdge(toID, fromID)
	return nil
}

// setEdge records that dependent depends on dependency, which must be new.
func (g *Graph) setEdge(dependency, dependent int64) {
	g.g.SetEdge(simple.Edge{F: simple.Node(dependency), T: simple.Node(dependent)})
	g.edgeList = append(g.edgeList, idEdge{int32(dependency), int32(dependent)})
}

// Has reports whether the vertex exists.
func (g *Graph) Has(name string) bool {
	_, ok := g.ids[name]
	return ok
}

// Len is the number of vertices.
func (g *Graph) Len() int { return len(g.names) }

// Names returns every vertex in insertion order.
func (g *Graph) Names() []string { return slices.Clone(g.names) }

// DependenciesOf returns the vertices name directly depends on, sorted.
// An unknown name has none.
func (g *Graph) DependenciesOf(name string) []string {
	id, ok := g.ids[name]
	if !ok {
		return nil
	}
	return g.sortedNames(g.g.To(id))
}

func (g *Graph) sortedNames(nodes gonum.Nodes) []string {
	out := make([]string, 0, nodes.Len())
	for nodes.Next() {
		out = append(out, g.names[nodes.Node().ID()])
	}
	slices.Sort(out)
	return out
}

// edges calls fn for every edge as (dependency id, dependent id), in the
// order the edges were added.
func (g *Graph) edges(fn func(dependency, dependent int64)) {
	for _, e := range g.edgeList {
		fn(int64(e.dependency), int64(e.dependent))
	}
}
