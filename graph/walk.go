package graph

import (
	"context"
	"errors"
	"runtime/debug"
)

// DefaultParallelism is used when WalkOptions.Parallelism is below 1.
const DefaultParallelism = 10

// WalkOptions tune Walk.
type WalkOptions struct {
	// Parallelism bounds how many fns run at once; below 1 means
	// DefaultParallelism.
	Parallelism int
	// Stop, once closed, lets running fns finish but starts nothing new
	// (Ctrl-C: finish what is in flight, lose nothing, start nothing).
	Stop <-chan struct{}
}

// errGoexit is recorded when fn ends its goroutine with runtime.Goexit
// (t.FailNow in a test), which would otherwise hang the walk.
var errGoexit = errors.New("fn exited its goroutine without returning")

// Walk calls fn once for each vertex, in parallel, after every dependency
// of that vertex has succeeded.
//
//   - A vertex whose dependency failed or was skipped is not run; it is
//     recorded as skipped with the root failure. Independent branches keep
//     running.
//   - When opts.Stop is closed or ctx is cancelled nothing new starts; Walk
//     waits for the running fns and records the rest as not started. fn sees
//     ctx, so it can abandon its work on cancellation.
//   - A panic in fn is recovered and recorded as that vertex's *PanicError.
//   - A graph with a cycle runs nothing and reports the cycle.
//
// Scheduling costs O(E + V log V) overall: indegree counters and a ready
// heap ordered by insertion, so with Parallelism 1 fns run in exactly the
// TopoOrder order.
func (g *Graph) Walk(ctx context.Context, opts WalkOptions, fn func(ctx context.Context, name string) error) *WalkResult {
	res := &WalkResult{Errors: map[string]error{}, Skipped: map[string]string{}}
	adj := g.adjacency()
	if len(adj.order()) < g.Len() {
		// Catch a cycle before anything is applied, not halfway through.
		res.Cycle = g.cycles()
		return res
	}
	w := newWalker(g, adj, ctx, fn, res)
	parallelism := opts.Parallelism
	if parallelism < 1 {
		parallelism = DefaultParallelism
	}
	w.results = make(chan outcome, parallelism)
	w.loop(parallelism, opts.Stop)
	for id, s := range w.state {
		if s == unresolved {
			res.NotStarted = append(res.NotStarted, g.names[id])
		}
	}
	return res
}

type vertexState uint8

const (
	unresolved vertexState = iota
	running
	resolved // done, failed or skipped
)

const noCause = -1

type outcome struct {
	id  int32
	err error
}

// walker holds one walk's bookkeeping. Only the goroutine running loop
// touches it; fns report back over results.
type walker struct {
	g   *Graph
	ctx context.Context
	fn  func(context.Context, string) error
	res *WalkResult

	adj     adjacency
	pending []int32 // dependencies of each vertex not yet resolved
	cause   []int32 // earliest-added failed vertex upstream, or noCause
	state   []vertexState
	ready   readyQueue
	results chan outcome
}

func newWalker(g *Graph, adj adjacency, ctx context.Context, fn func(context.Context, string) error, res *WalkResult) *walker {
	n := g.Len()
	w := &walker{
		g: g, ctx: ctx, fn: fn, res: res,
		adj:     adj,
		pending: adj.indeg, // adj is this walk's own snapshot, so count down in place
		cause:   make([]int32, n),
		state:   make([]vertexState, n),
	}
	for v := range n {
		w.cause[v] = noCause
		if w.pending[v] == 0 {
			w.ready.push(int32(v))
		}
	}
	return w
}

// loop starts ready vertices up to the bound and folds in results until
// nothing is running and nothing more may start.
func (w *walker) loop(parallelism int, stop <-chan struct{}) {
	cancelled := w.ctx.Done()
	halted := false
	halt := func() { halted, stop, cancelled = true, nil, nil }
	inFlight := 0
	for {
		if !halted {
			// A stop that arrived together with a result must still win
			// before anything new starts.
			select {
			case <-stop:
				halt()
			case <-cancelled:
				halt()
			default:
			}
		}
		for !halted && inFlight < parallelism && w.ready.Len() > 0 {
			w.start(w.ready.pop())
			inFlight++
		}
		if inFlight == 0 {
			return
		}
		select {
		case o := <-w.results:
			inFlight--
			w.finish(o)
		case <-stop:
			halt()
		case <-cancelled:
			halt()
		}
	}
}

func (w *walker) start(id int32) {
	w.state[id] = running
	go func() {
		err := errGoexit
		defer func() { w.results <- outcome{id, err} }()
		err = w.call(id)
	}()
}

func (w *walker) call(id int32) (err error) {
	name := w.g.names[id]
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Vertex: name, Value: r, Stack: debug.Stack()}
		}
	}()
	return w.fn(w.ctx, name)
}

// finish records one fn's outcome and releases its dependents: each becomes
// ready once all its dependencies are resolved, or is skipped (and releases
// its own dependents in turn) if any of them failed.
func (w *walker) finish(o outcome) {
	cause := int32(noCause)
	if o.err != nil {
		w.res.Errors[w.g.names[o.id]] = o.err
		cause = o.id
	} else {
		w.res.Done = append(w.res.Done, w.g.names[o.id])
	}
	w.state[o.id] = resolved

	type release struct{ id, cause int32 }
	stack := []release{{o.id, cause}}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range w.adj.dependents(r.id) {
			if r.cause != noCause && (w.cause[d] == noCause || r.cause < w.cause[d]) {
				w.cause[d] = r.cause
			}
			if w.pending[d]--; w.pending[d] > 0 {
				continue
			}
			if w.cause[d] == noCause {
				w.ready.push(d)
				continue
			}
			w.state[d] = resolved
			w.res.Skipped[w.g.names[d]] = w.g.names[w.cause[d]]
			stack = append(stack, release{d, w.cause[d]})
		}
	}
}
