package graph

import (
	"slices"
	"strings"
)

// CycleError reports dependency cycles. Each cycle lists vertices where each
// one depends on the next and the last depends on the first. A cycle starts at
// its lexically smallest name and the cycles are sorted, so the message is
// the same on every run whatever order the graph was built in.
type CycleError struct {
	Cycles [][]string
}

// Error renders one line per cycle, like "cycle: a → b → c → a".
func (e *CycleError) Error() string {
	lines := make([]string, len(e.Cycles))
	for i, c := range e.Cycles {
		lines[i] = "cycle: " + strings.Join(append(slices.Clone(c), c[0]), " → ")
	}
	return strings.Join(lines, "\n")
}

// cycleError turns gonum's strongly connected components into one concrete
// cycle each: a component can hold many cycles (exponentially many in the
// worst case), so we report the shortest one through its smallest name,
// which is enough to show the user what to break.
func (g *Graph) cycleError(components [][]int64) *CycleError {
	e := &CycleError{}
	for _, comp := range components {
		members := make(map[int64]bool, len(comp))
		start := comp[0]
		for _, id := range comp {
			members[id] = true
			if g.names[id] < g.names[start] {
				start = id
			}
		}
		e.Cycles = append(e.Cycles, g.shortestCycle(start, members))
	}
	slices.SortFunc(e.Cycles, slices.Compare)
	return e
}

// shortestCycle walks "depends on" edges breadth first from start, staying
// inside members, until it gets back to start. Neighbours are visited in
// name order so the result does not depend on map iteration.
func (g *Graph) shortestCycle(start int64, members map[int64]bool) []string {
	parent := map[int64]int64{}
	queue := []int64{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, dep := range g.dependencyIDsByName(v) {
			if !members[dep] {
				continue
			}
			if dep == start {
				return g.cyclePath(start, v, parent)
			}
			if _, seen := parent[dep]; !seen {
				parent[dep] = v
				queue = append(queue, dep)
			}
		}
	}
	// Unreachable: every member of a strongly connected component lies on a
	// cycle through every other member.
	return []string{g.names[start]}
}

// cyclePath rebuilds start → … → last from the breadth-first parents.
func (g *Graph) cyclePath(start, last int64, parent map[int64]int64) []string {
	var rev []string
	for v := last; v != start; v = parent[v] {
		rev = append(rev, g.names[v])
	}
	rev = append(rev, g.names[start])
	slices.Reverse(rev)
	return rev
}

func (g *Graph) dependencyIDsByName(id int64) []int64 {
	ids := make([]int64, len(g.deps[id]))
	for i, d := range g.deps[id] {
		ids[i] = int64(d)
	}
	slices.SortFunc(ids, func(a, b int64) int { return strings.Compare(g.names[a], g.names[b]) })
	return ids
}
