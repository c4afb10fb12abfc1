package graph

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// dependentsOf returns the vertices that directly depend on name, sorted;
// an unknown name has none. Only tests ask (the engine walks the graph).
func dependentsOf(g *Graph, name string) []string {
	id, ok := g.ids[name]
	if !ok {
		return nil
	}
	var dependents []int32
	for _, e := range g.edgeList {
		if int64(e.dependency) == id {
			dependents = append(dependents, e.dependent)
		}
	}
	return g.sortedNames(dependents)
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

// What the tests read from a WalkResult; the engine reads its fields.

// walkOK reports whether every vertex ran and succeeded.
func walkOK(r *WalkResult) bool {
	return r.Cycle == nil && len(r.Errors) == 0 && len(r.Skipped) == 0 && len(r.NotStarted) == 0
}

// walkFailed returns the vertices whose fn failed, sorted.
func walkFailed(r *WalkResult) []string {
	return slices.Sorted(maps.Keys(r.Errors))
}

// walkErr summarises the walk as one error, or nil when OK: the cycle,
// then each failure as "name: error" in name order, then counts of what
// did not run.
func walkErr(r *WalkResult) error {
	if r.Cycle != nil {
		return r.Cycle
	}
	var errs []error
	for _, name := range walkFailed(r) {
		errs = append(errs, fmt.Errorf("%s: %w", name, r.Errors[name]))
	}
	if n := len(r.Skipped); n > 0 {
		errs = append(errs, fmt.Errorf("%d skipped because a dependency failed", n))
	}
	if n := len(r.NotStarted); n > 0 {
		errs = append(errs, fmt.Errorf("%d not started because the walk was stopped", n))
	}
	return errors.Join(errs...)
}
