// Package engine turns a cluster definition into a plan and a plan into
// changes on hosts: load HCL → expand resources → diff against state (after
// a refresh) → Plan; walk a Plan along its graph → apply; destroy.
//
// The engine never prints. It reports through the Observer a command passes in
// and returns plain data (Plan, Result) that command/ renders.
package engine

import (
	"path/filepath"
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

// Options are the inputs shared by plan, apply and destroy.
type Options struct {
	Dir       string          // configuration directory
	Vars      config.VarInput // -var, -var-file, environment
	StatePath string          // default DIR/eggo.state
	// StatePathSet: StatePath was given explicitly (-state), so it wins
	// over a backend "file" block's path.
	StatePathSet bool
	// Identities are files holding the operator's private keys (age
	// identities or SSH keys) that open the state's sealed secrets.
	Identities []string
	// Keyring seals and opens the state's secrets; Backend is where the
	// state lives. OpenBackend sets both from the configuration; when
	// Backend is nil the state file at StatePath is used with Keyring.
	Keyring *state.Keyring
	Backend state.Backend
	// Prefetched is the state file read while the configuration loaded
	// (PrefetchState), used if Backend is that file.
	Prefetched *StatePrefetch

	Parallelism int      // default DefaultParallelism
	Targets     []string // -target: only these and what they depend on
	Replace     []string // -replace: force replacement
	NoRefresh   bool     // -refresh=false
	Destroy     bool     // plan the deletion of everything in state
	// Force drops the resources of hosts that cannot be reached from the
	// state when they are being deleted, without touching the hosts.
	Force bool
	// CommandHooks are the hook flags (--prehook …): they join the HCL
	// hooks for this run only.
	CommandHooks []config.HookFlag
	Log          hclog.Logger
	Observer     Observer
	// Kinds are the resource kinds to plan with (nil: kinds.All(); tests
	// give their own).
	Kinds []resources.Kind
	// Session shares connections between a plan and its apply (nil: each
	// opens its own).
	Session *Session
	// hookRunner runs hook steps (nil: the real one); engine tests fake it.
	hookRunner hookRunner
	// fileBackendPath is the state file Backend is, if it is one
	// (OpenBackend).
	fileBackendPath string
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

func (o *Options) defaults() {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.StatePath == "" {
		o.StatePath = joinPath(o.Dir, "eggo.state")
	}
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
}

func joinPath(dir, name string) string { return filepath.Join(dir, name) }
