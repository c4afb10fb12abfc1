package graph

import "fmt"

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

// PanicError is recorded for a vertex whose fn panicked. Its text leaves the
// vertex out because Errors is keyed by vertex.
type PanicError struct {
	Vertex string
	Value  any    // what was passed to panic
	Stack  []byte // the panicking goroutine's stack, for debugging logs
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v", e.Value)
}
