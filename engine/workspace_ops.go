package engine

import (
	"context"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// PlanOptions are one plan's flags.
type PlanOptions struct {
	Parallelism int      // at most this many reads at once (default DefaultParallelism)
	Targets     []string // -target: only these and what they depend on
	Replace     []string // -replace: force replacement
	NoRefresh   bool     // -refresh=false: trust the state, read no host
	// Force keeps, from the state, what a host that cannot be reached
	// holds when it is being deleted (the apply drops it untouched).
	Force bool
}

// ApplyOptions are one apply's flags.
type ApplyOptions struct {
	Parallelism int // at most this many changes at once (default DefaultParallelism)
	// Force drops the resources of hosts that cannot be reached when they
	// are being deleted, without touching the hosts (a plan made with
	// -force applies so anyway).
	Force bool
}

// ApplyObserver observes an apply: Applying is called once the state the
// plan applies to is read, before anything changes, and the func it
// returns when the apply ends.
type ApplyObserver interface {
	Observer
	Applying() (done func())
}

// Applying starts nothing.
func (NopObserver) Applying() func() { return func() {} }

// Plan reads the state, refreshes it from the hosts (at most
// o.Parallelism at once, reported to obs) and diffs it against the
// configuration. Its one error is whatever stopped the plan: the
// configuration's diagnostics are Open's.
func (w *Workspace) Plan(ctx context.Context, po PlanOptions, obs Observer) (*Plan, error) {
	if err := w.needs(true); err != nil {
		return nil, err
	}
	p, err := makePlan(ctx, w.planRun(po, obs), w.loaded)
	if p != nil {
		w.planned[p] = true
	}
	return p, err
}

// planRun is a plan's options. The first plan takes what the prefetch
// read, if its backend is that file.
func (w *Workspace) planRun(po PlanOptions, obs Observer) options {
	w.connecting()
	o := w.run(po.Parallelism, obs)
	o.Targets, o.Replace, o.NoRefresh, o.Force = po.Targets, po.Replace, po.NoRefresh, po.Force
	o.Prefetched, w.prefetch = w.prefetch, nil
	return o
}

// checkSaved refuses a saved plan whose configuration changed since it
// was made, and lets the kinds learn where their local inputs are (the
// host kind: which bundle file has which content), as a plan would.
func (w *Workspace) checkSaved(p *Plan) error {
	cfg := w.loaded.Config
	if cfg == nil {
		return nil
	}
	if !p.Destroy && cfg.Hash != p.ConfigHash {
		return errorf("the configuration changed since this plan was made: make a new plan")
	}
	_, err := expand(w.req.Kinds, cfg.Cluster)
	return err
}

// Apply walks the plan's graph, changing resources in parallel along its
// edges and recording each in the state as it finishes, under the state's
// lock (Lock, which it refuses to do without). p is a plan this workspace
// made, or a saved one (LoadPlan): a saved plan is refused when the
// configuration changed since it was made (a destroy's excepted), and
// either is refused when the state did. Result counts the connections and
// writes of the workspace's session, its plan's included.
func (w *Workspace) Apply(ctx context.Context, p *Plan, ao ApplyOptions, obs ApplyObserver, stop <-chan struct{}) (*Result, error) {
	if err := w.needs(false); err != nil {
		return nil, err
	}
	if w.unlock == nil {
		return nil, errorf("an apply runs under the state's lock: Workspace.Lock first")
	}
	if !w.planned[p] {
		if err := w.checkSaved(p); err != nil {
			return nil, err
		}
	}
	if obs == nil {
		obs = NopObserver{}
	}
	w.connecting()
	o := w.run(ao.Parallelism, obs)
	o.Force = ao.Force
	prior, err := o.readState()
	if err != nil {
		return nil, err
	}
	done := obs.Applying()
	defer done()
	return apply(ctx, o, p, prior, stop)
}

// State reads the state, its secrets opened with the workspace's keyring;
// (nil, nil) when there is none yet.
func (w *Workspace) State() (*state.State, error) {
	if err := w.needs(false); err != nil {
		return nil, err
	}
	return w.run(0, nil).readState()
}

// Validate checks what the resource kinds need beyond the language (for
// example that the package bundle has every file the nodes' roles need).
// A configuration holding unknown values (validate's variables without a
// value) is not checked: its stand-ins (empty names, missing nodes) are
// what the kinds would refuse.
func (w *Workspace) Validate() error {
	cfg := w.loaded.Config
	if cfg == nil || len(cfg.Unset) > 0 {
		return nil
	}
	_, err := expand(w.req.Kinds, cfg.Cluster)
	return err
}

// RekeyHost accepts a reinstalled host deliberately (see Rekey): it pins
// the key node presents now, refused unless it is wantFingerprint when
// that is set. It writes the state: under the state's lock (Lock).
func (w *Workspace) RekeyHost(ctx context.Context, node, wantFingerprint string) (*Rekey, error) {
	if err := w.needs(true); err != nil {
		return nil, err
	}
	if w.unlock == nil {
		return nil, errorf("rekey-host runs under the state's lock: Workspace.Lock first")
	}
	w.connecting()
	return rekeyHost(ctx, w.run(0, nil), w.loaded.Config, node, wantFingerprint)
}

// needs refuses an operation the workspace has not the means for: the
// state (opened with NoState, or closed), or a configuration (config).
func (w *Workspace) needs(config bool) error {
	switch {
	case w.backend == nil:
		return errorf("this workspace has no state: opened with Request.NoState, or closed")
	case config && w.loaded.Config == nil:
		return errorf("no configuration in %s", w.req.Dir)
	}
	return nil
}

// connecting makes the workspace's session, if it has none yet: the
// connections its operations share until Close.
func (w *Workspace) connecting() {
	if w.session == nil {
		w.session = resources.NewRunContext(w.req.Log, nil)
	}
}

// run is one operation's options: the workspace's, with the call's
// parallelism and observer.
func (w *Workspace) run(parallelism int, obs Observer) options {
	return options{StatePath: w.statePath, Vars: w.req.Vars, Keyring: w.keyring, Backend: w.backend,
		fileBackend: w.fileBackend, Parallelism: parallelism, Destroy: w.req.Destroy, Log: w.req.Log,
		Observer: obs, Kinds: w.req.Kinds, session: w.session, hookRunner: w.hookRunner}.withDefaults()
}
