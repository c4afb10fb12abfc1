package resources

import (
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
	// WorkDir is the directory of the state file: where files meant for the
	// operator (the admin kubeconfig) are written.
	WorkDir string
	// Destroy is set for `eggo destroy`: everything goes, so cluster-level
	// courtesies (draining a node, removing an etcd member) are skipped.
	Destroy bool
	// Force is set by -force: a resource on a host that cannot be reached is
	// removed from the cluster and the state without touching the host.
	Force bool
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
		Recorded: func(string) []Object { return nil }}
}

// Close closes every connection of the run.
func (rc *RunContext) Close() error { return rc.Pool.Close() }
