package engine

import (
	"context"

	"github.com/eggo-project/eggo/graph"
)

// eachBounded calls fn for every name, at most parallelism at once, on the
// walker apply runs its graph on (here a graph without edges): reads and
// scans obey -parallelism exactly as changes do, stop starting when ctx is
// cancelled, and a panicking fn is its name's error, not a crash. Names
// start in the order given.
func eachBounded(ctx context.Context, parallelism int, names []string, fn func(ctx context.Context, name string) error) *graph.WalkResult {
	g := graph.New()
	for _, n := range names {
		g.Add(n)
	}
	return g.Walk(ctx, graph.WalkOptions{Parallelism: parallelism}, fn)
}
