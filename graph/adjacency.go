package graph

// adjacency is a flat, read-only snapshot of the dependents of every vertex
// and how many dependencies each has. Ordering and walking scan it instead of
// per-vertex lists: O(V + E) with no allocation per step.
type adjacency struct {
	offsets []int32 // dependents of v are targets[offsets[v]:offsets[v+1]]
	targets []int32
	indeg   []int32 // number of direct dependencies of each vertex
}

func (g *Graph) adjacency() adjacency {
	n := g.Len()
	a := adjacency{offsets: make([]int32, n+1), indeg: make([]int32, n)}
	// Counting sort of the flat edge list into per-vertex runs.
	for _, e := range g.edgeList {
		a.offsets[e.dependency+1]++
		a.indeg[e.dependent]++
	}
	for v := range n {
		a.offsets[v+1] += a.offsets[v]
	}
	a.targets = make([]int32, len(g.edgeList))
	next := append([]int32(nil), a.offsets[:n]...)
	for _, e := range g.edgeList {
		a.targets[next[e.dependency]] = e.dependent
		next[e.dependency]++
	}
	return a
}

func (a adjacency) dependents(v int32) []int32 {
	return a.targets[a.offsets[v]:a.offsets[v+1]]
}

// order is Kahn's algorithm with the ready set kept as a min-heap of
// insertion indexes: of the vertices whose dependencies are all placed, the
// earliest-added comes next. It returns fewer than all vertices when some
// lie on or behind a cycle.
func (a adjacency) order() []int32 {
	pending := append([]int32(nil), a.indeg...)
	var ready readyQueue
	for v, d := range pending {
		if d == 0 {
			ready.push(int32(v))
		}
	}
	out := make([]int32, 0, len(pending))
	for ready.Len() > 0 {
		v := ready.pop()
		out = append(out, v)
		for _, d := range a.dependents(v) {
			if pending[d]--; pending[d] == 0 {
				ready.push(d)
			}
		}
	}
	return out
}
