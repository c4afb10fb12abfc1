package graph

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// WalkResult is what a Walk did to each vertex. Every vertex ends up in
// exactly one of Done, Errors, Skipped or NotStarted (or none ran at all
// when Cycle is set).
type WalkResult struct {
	// Done lists the vertices whose fn returned nil, in completion order.
	Done []string
	// Errors holds the error of every vertex whose fn failed or panicked.
	Errors map[string]error
	// Skipped maps a vertex that was not run, because something it depends
	// on failed, to the root cause: the failed vertex, never an intermediate
	// skipped one. With several failed causes the earliest-added is named.
	Skipped map[string]string
	// NotStarted lists, in insertion order, the vertices left when the walk
	// was stopped or its context cancelled.
	NotStarted []string
	// Cycle is set, and nothing is run, when the graph has a dependency cycle.
	Cycle *CycleError
}

// OK reports whether every vertex ran and succeeded.
func (r *WalkResult) OK() bool {
	return r.Cycle == nil && len(r.Errors) == 0 && len(r.Skipped) == 0 && len(r.NotStarted) == 0
}

// Failed returns the vertices whose fn failed, sorted.
func (r *WalkResult) Failed() []string {
	return slices.Sorted(maps.Keys(r.Errors))
}

// Err summarises the walk as one error, or nil when OK: the cycle, then each
// failure as "name: error" in name order, then counts of what did not run.
func (r *WalkResult) Err() error {
	if r.Cycle != nil {
		return r.Cycle
	}
	var errs []error
	for _, name := range r.Failed() {
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

// PanicError is recorded for a vertex whose fn panicked. Its text leaves the
// vertex out because Errors is keyed by vertex and Err prefixes the name.
type PanicError struct {
	Vertex string
	Value  any    // what was passed to panic
	Stack  []byte // the panicking goroutine's stack, for debugging logs
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v", e.Value)
}
