package graph

import (
	"fmt"
	"slices"
)

// Graph is a directed graph of named vertices, stored flat: each vertex's
// dependencies as a list of ids, and every edge once more in the order it
// was added. gonum's nested maps cost an allocation or more per edge, and
// a plan of 1,000 nodes connects tens of thousands; gonum now only finds
// the cycles of a graph that has some (cycles, in order.go).
type Graph struct {
	names []string         // vertex id → name; the id is the insertion index
	ids   map[string]int64 // name → vertex id

	deps [][]int32 // vertex id → the ids it depends on, in the order connected
	// edgeSet holds the edges of the vertices with more than smallDegree
	// dependencies, so connecting a pair twice adds nothing; a shorter
	// list is searched instead. A set of every edge was a map of 400,000
	// entries for 10,000 nodes, a cache miss per edge to build.
	edgeSet map[idEdge]struct{}

	// edgeList is every edge in the order it was added: the order and walk
	// hot paths read it.
	edgeList []idEdge
}

// idEdge is one edge as (dependency id, dependent id).
type idEdge struct{ dependency, dependent int32 }

// New returns an empty graph.
func New() *Graph {
	return &Graph{ids: map[string]int64{}, edgeSet: map[idEdge]struct{}{}}
}

// NewSized returns an empty graph with room for about this many vertices
// and edges: a plan knows them before it builds its graph, and maps that
// grow by doubling to thousands of entries are rebuilt over and over.
func NewSized(vertices, edges int) *Graph {
	return &Graph{
		names: make([]string, 0, vertices), ids: make(map[string]int64, vertices), deps: make([][]int32, 0, vertices),
		edgeSet: map[idEdge]struct{}{}, edgeList: make([]idEdge, 0, edges),
	}
}

// Add adds a vertex. Adding a name that is already present does nothing, so
// the vertex keeps its first insertion position.
func (g *Graph) Add(name string) {
	if _, ok := g.ids[name]; ok {
		return
	}
	id := int64(len(g.names))
	g.names = append(g.names, name)
	g.deps = append(g.deps, nil)
	g.ids[name] = id
}

// Connect records that from depends on to: to runs before from. Connecting
// the same pair twice is harmless. Both vertices must already exist.
func (g *Graph) Connect(from, to string) error {
	fromID, ok := g.ids[from]
	if !ok {
		return fmt.Errorf("cannot make %s depend on %s: unknown vertex %s", from, to, from)
	}
	toID, ok := g.ids[to]
	if !ok {
		return fmt.Errorf("cannot make %s depend on %s: unknown vertex %s", from, to, to)
	}
	return g.ConnectIDs(int(fromID), int(toID))
}

// ID is name's vertex id: its insertion index (the first vertex added is
// 0). A caller that connects many edges looks each name up once.
func (g *Graph) ID(name string) (int, bool) {
	id, ok := g.ids[name]
	return int(id), ok
}

// ConnectIDs is Connect by vertex ids (from ID), which must exist.
func (g *Graph) ConnectIDs(from, to int) error {
	if from == to {
		// A self dependency is a user error.
		return fmt.Errorf("%s depends on itself", g.names[from])
	}
	if !g.hasEdge(int32(to), int32(from)) {
		g.setEdge(int64(to), int64(from))
	}
	return nil
}

// smallDegree is the most dependencies a vertex has before its edges go
// into edgeSet: a search of that many ids beats a map.
const smallDegree = 16

func (g *Graph) hasEdge(dependency, dependent int32) bool {
	if deps := g.deps[dependent]; len(deps) <= smallDegree {
		return slices.Contains(deps, dependency)
	}
	_, ok := g.edgeSet[idEdge{dependency, dependent}]
	return ok
}

// setEdge records that dependent depends on dependency, which must be new.
func (g *Graph) setEdge(dependency, dependent int64) {
	e := idEdge{int32(dependency), int32(dependent)}
	deps := g.deps[dependent]
	if len(deps) == smallDegree {
		for _, d := range deps {
			g.edgeSet[idEdge{d, e.dependent}] = struct{}{}
		}
	}
	if len(deps) >= smallDegree {
		g.edgeSet[e] = struct{}{}
	}
	g.deps[dependent] = append(deps, e.dependency)
	g.edgeList = append(g.edgeList, e)
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
	return g.sortedNames(g.deps[id])
}

func (g *Graph) sortedNames(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = g.names[id]
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
