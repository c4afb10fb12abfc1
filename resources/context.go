package resources

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/eggo-project/eggo/providers"
)

// RunContext is what one plan, apply or destroy run gives every kind: the
// run's connection pool (one connection per host per run) and where to
// report progress. The engine creates one per run and closes it at the end.
type RunContext struct {
	Pool *providers.Pool
	Log  hclog.Logger
	// Progress reports a step of work on a resource ("copying etcd (21 MB)").
	// Never nil; never pass a secret.
	Progress func(addr, msg string)
	// Checkpoint records a resource's attributes mid-operation, before the
	// step they describe is taken (write-ahead): a crash after it loses
	// nothing a later Delete needs. A kind must not go on changing the host
	// when it fails. Never nil; during plan it does nothing.
	Checkpoint func(addr string, attrs Attrs) error
	// Recorded returns the objects of a kind recorded in state, sorted by
	// address: during plan as the run found them, during apply as they are
	// now. Kinds that act on a whole cluster (an etcd member joining the
	// running members, a node drained through a master) find the others
	// here. Never nil; treat the objects as read-only.
	Recorded func(kind string) []Object
	// RecordedAt returns the object recorded at an address, as Recorded
	// would find it: a lookup, for a kind that asks about a few objects
	// it can name (a node's other services) in a cluster of thousands.
	// Never nil.
	RecordedAt func(addr string) (Object, bool)
	// WorkDir is the directory of the state file: where files meant for the
	// operator (the admin kubeconfig) are written.
	WorkDir string
	// Destroy is set for `eggo destroy`: everything goes, so cluster-level
	// courtesies (draining a node, removing an etcd member) are skipped.
	Destroy bool
	// Force is set by -force: a resource on a host that cannot be reached is
	// removed from the cluster and the state without touching the host.
	Force bool

	memoMu sync.Mutex
	memos  map[string]*memoEntry
	// pins are the run's pinned host keys (see PinHostKeys).
	pins HostKeyPins
}

// memoEntry is one key's value, ready once done is closed.
type memoEntry struct {
	done chan struct{}
	val  any
	err  error
}

// Memo returns what fn computes for key, running fn at most once per key
// per run: the first caller runs it, concurrent callers of the same key
// wait for that one call, later callers get its result. An error is kept
// like a value (fn is not retried within the run). Meant for a question
// many resources ask of the same live system during refresh, such as one
// listing of a cluster's Nodes serving every k8s_node; the answer is as of
// the first call, so memoize nothing a run's own changes would make stale.
// Keys are shared by every kind: prefix them with the kind's name.
func (rc *RunContext) Memo(key string, fn func() (any, error)) (any, error) {
	rc.memoMu.Lock()
	e, ok := rc.memos[key]
	if !ok {
		if rc.memos == nil {
			rc.memos = map[string]*memoEntry{}
		}
		e = &memoEntry{done: make(chan struct{})}
		rc.memos[key] = e
	}
	rc.memoMu.Unlock()
	if ok {
		<-e.done
		return e.val, e.err
	}
	defer close(e.done)
	defer func() {
		// A panicking fn must not leave the other callers waiting forever.
		if r := recover(); r != nil {
			e.val, e.err = nil, fmt.Errorf("%s: internal error: %v", key, r)
			panic(r)
		}
	}()
	e.val, e.err = fn()
	return e.val, e.err
}

// NewRunContext returns a RunContext with a fresh pool.
func NewRunContext(log hclog.Logger, progress func(addr, msg string)) *RunContext {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if progress == nil {
		progress = func(string, string) {}
	}
	return &RunContext{Pool: providers.NewPool(log), Log: log, Progress: progress, Checkpoint: func(string, Attrs) error { return nil },
		Recorded: func(string) []Object { return nil }, RecordedAt: func(string) (Object, bool) { return Object{}, false }}
}

// Close closes every connection of the run.
func (rc *RunContext) Close() error { return rc.Pool.Close() }

// Connect is the run's connection to a node, reached as its record says:
// attrs holds the "address" and "connection" attributes ConnectionAttrs
// wrote, so a node that has left the configuration is still reached from
// the state alone. One connection per host per run (the pool). A record
// without a way to reach the node is an error of its own; a failed dial
// says "host NODE unreachable" and stays an unreachable error for -force.
func (rc *RunContext) Connect(ctx context.Context, node string, attrs Attrs) (providers.Conn, error) {
	t, err := TargetFromAttrs(node, attrs)
	if err != nil {
		return nil, err
	}
	return rc.dial(ctx, t)
}

// dial is Connect for a target already built (a hook on the operator's
// machine has no record).
func (rc *RunContext) dial(ctx context.Context, t providers.Target) (providers.Conn, error) {
	conn, err := rc.Pool.Get(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("host %s unreachable: %w", t.Name, err)
	}
	return conn, nil
}

// ConnectLocal is the run's connection to the machine running eggo.
func (rc *RunContext) ConnectLocal(ctx context.Context, name string) (providers.Conn, error) {
	return rc.dial(ctx, providers.Target{Name: name, Type: "local"})
}
