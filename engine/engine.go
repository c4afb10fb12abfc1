// Package engine turns a cluster definition into a plan and a plan into
// changes on hosts: load HCL → expand resources → diff against state (after
// a refresh) → Plan; walk a Plan along its graph → apply; destroy.
//
// A caller opens a Workspace (Open, from a Request that is plain data) and
// runs its operations: Plan, Apply, State, Validate, RekeyHost. The engine
// never prints. It reports through the Observer a caller passes to each
// operation and returns plain data (Plan, Result) that command/ renders.
package engine

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kinds"
	"github.com/eggo-project/eggo/state"
)

// Version is eggo's version, stamped into state and saved plans.
var Version = "0.1.0-dev"

// DefaultParallelism bounds concurrent resource operations.
const DefaultParallelism = 10

// options are one operation's inputs: the workspace's (the state, its
// keyring, the kinds, the log, the session) with the call's flags and
// observer. A Workspace builds them afresh for each call (Workspace.run);
// the engine's own tests build theirs. Nothing changes them once built.
type options struct {
	StatePath string          // the state file (the audit log is beside it)
	Vars      config.VarInput // what the plan records it was made with
	// Keyring seals and opens the state's secrets; Backend is where the
	// state lives (nil: the state file at StatePath, with Keyring).
	Keyring *state.Keyring
	Backend state.Backend
	// Prefetched is the state file read while the configuration loaded,
	// used if Backend is that file (fileBackend): a plan's only.
	Prefetched  *statePrefetch
	fileBackend bool

	Parallelism int      // default DefaultParallelism
	Targets     []string // -target: only these and what they depend on
	Replace     []string // -replace: force replacement
	NoRefresh   bool     // -refresh=false
	Destroy     bool     // plan the deletion of everything in state
	// Force drops the resources of hosts that cannot be reached from the
	// state when they are being deleted, without touching the hosts.
	Force    bool
	Log      hclog.Logger
	Observer Observer
	Kinds    []resources.Kind
	// session shares connections between a plan and its apply (nil: the
	// run opens its own and closes them when it ends).
	session *resources.RunContext
	// hookRunner runs hook steps (nil: the real one); engine tests fake it.
	hookRunner hookRunner
}

// Observer receives a run's progress (it is not the user's hooks, which
// are plan steps). Implementations must be safe for concurrent use:
// resources run in parallel.
type Observer interface {
	// Refreshing is called before a resource is read from its host.
	Refreshing(addr string)
	// PreApply is called when a resource starts changing.
	PreApply(c *resources.Change)
	// Progress is a step inside a running change.
	Progress(addr, msg string)
	// PostApply is called when a change finished (err nil) or failed.
	PostApply(c *resources.Change, err error, took time.Duration)
}

// NopObserver ignores everything.
type NopObserver struct{}

func (NopObserver) Refreshing(string)                                 {}
func (NopObserver) PreApply(*resources.Change)                        {}
func (NopObserver) Progress(string, string)                           {}
func (NopObserver) PostApply(*resources.Change, error, time.Duration) {}

// withDefaults is o with the defaults of what its caller left out.
func (o options) withDefaults() options {
	if o.Parallelism <= 0 {
		o.Parallelism = DefaultParallelism
	}
	if o.Log == nil {
		o.Log = hclog.NewNullLogger()
	}
	if o.Observer == nil {
		o.Observer = NopObserver{}
	}
	if o.hookRunner == nil {
		o.hookRunner = realHookRunner{}
	}
	if o.Kinds == nil {
		o.Kinds = kinds.All()
	}
	return o
}
