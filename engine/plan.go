package engine

import (
	"context"
	"sort"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// makePlan reads the state, refreshes it from the hosts and diffs it
// against loaded (without errors). Its one error is whatever stopped the
// plan; the configuration's diagnostics are Open's to report.
func makePlan(ctx context.Context, o options, loaded *Loaded) (*Plan, error) {
	prior, err := o.readState()
	if err != nil {
		return nil, err
	}
	cluster := loaded.Config.Cluster
	// Before any host is contacted: a host_key the state's pin contradicts
	// would refuse every connection to the node, with less to say.
	if !o.Destroy {
		if err := checkConfiguredHostKeys(cluster, prior); err != nil {
			return nil, err
		}
	}
	defer cluster.Index()()
	// A destroy wants nothing, so what earlier applies chose (and the
	// version they reached) has no say in it.
	if prior != nil && !o.Destroy {
		recall(o.Kinds, cluster, prior)
	}
	desired, err := expand(o.Kinds, cluster)
	if err != nil {
		return nil, err
	}
	have, err := recordedObjects(prior, kindIndex(o.Kinds))
	if err != nil {
		return nil, err
	}
	pins := newHostPins(prior, nil)
	rc, done := o.runContext(planRun(o, pins, have))
	defer done()
	p, err := plan(ctx, o, rc, desired, prior, have)
	if err != nil {
		return nil, err
	}
	var warnings []string
	p.HostKeys, warnings = planHostKeys(ctx, o, rc, pins, cluster, prior)
	p.Warnings = append(p.Warnings, warnings...)
	p.Deploying = deploying(o, prior) && p.HasChanges()
	if err := placeHooks(p, cluster, loaded.Config.Hooks, p.Deploying); err != nil {
		return nil, err
	}
	stampConfig(p, o, loaded.Config, prior)
	return p, nil
}

// planRun is a plan's run: kinds that act on the whole cluster find the
// recorded objects as the refresh leaves them.
func planRun(o options, pins *hostPins, have map[string]*resources.Object) runSpec {
	return runSpec{
		pins:     pins,
		recorded: func(kind string) []resources.Object { return recordedOf(have, kind) },
		recordedAt: func(addr string) (resources.Object, bool) {
			if o, ok := have[addr]; ok {
				return *o, true
			}
			return resources.Object{}, false
		},
		destroy: o.Destroy,
		force:   o.Force,
	}
}

// stampConfig records what the plan was made from (so a saved plan is
// applied against the same configuration) and its outputs.
func stampConfig(p *Plan, o options, cfg *config.Config, prior *state.State) {
	p.ConfigHash = cfg.Hash
	p.VarArgs, p.VarFiles = o.Vars.Vars, o.Vars.VarFiles
	p.Outputs = outputs(cfg)
	var priorOutputs map[string]any
	if prior != nil {
		priorOutputs = prior.Outputs
	}
	want := outputMap(p.Outputs)
	if o.Destroy {
		want = nil
	}
	p.OutputsChanged = !resources.Equal(map[string]any(priorOutputs), map[string]any(want))
}

// plan diffs desired against prior, whose resources have holds (see
// recordedObjects), refreshing them first. It is the core shared by plan,
// apply and destroy, and by the engine's tests (which pass desired
// directly).
func plan(ctx context.Context, o options, rc *resources.RunContext, desired []resources.Desired, prior *state.State, have map[string]*resources.Object) (*Plan, error) {
	kinds := kindIndex(o.Kinds)
	p := &Plan{Destroy: o.Destroy, Force: o.Force}
	if prior != nil {
		p.Lineage, p.Serial = prior.Lineage, prior.Serial
		p.Unreadable = prior.Unreadable()
		if len(p.Unreadable) > 0 {
			p.UnreadableReasons = prior.UnreadableReasons()
		}
		if why := prior.DataKeyDistrusted(); why != "" {
			p.Warnings = append(p.Warnings, "The state's data key will not be reused: "+why+". "+
				"The next write seals every secret under a new data key, sealed to the state's recipients only.")
		}
	}
	if o.Destroy {
		desired = nil
	} else {
		p.Secrets = secretsChange(prior, o.Keyring)
	}
	want, err := desiredByAddr(desired, kinds)
	if err != nil {
		return nil, err
	}
	refs := refsByAddr(want)
	g, err := planGraph(want, have, refs)
	if err != nil {
		return nil, err
	}
	scope, warnings, err := targetScope(g, o)
	if err != nil {
		return nil, err
	}
	p.Warnings = append(p.Warnings, warnings...)
	drift, err := refresh(ctx, o, rc, kinds, have, scope)
	if err != nil {
		return nil, err
	}
	replace, err := replaceSet(o.Replace, want, have)
	if err != nil {
		return nil, err
	}
	// In dependency order, so a resource referring to another knows
	// whether that one keeps its recorded values.
	order, err := g.TopoOrder()
	if err != nil {
		return nil, err
	}
	d := &differ{rc: rc, destroy: o.Destroy, kinds: kinds, schemas: newSchemas(kinds), want: want, refs: refs, have: have, drift: drift,
		replace: replace, sealed: sealedAttrs(prior), g: g, scope: scope, steps: make(map[string]*Step, len(order))}
	if scope != nil {
		order = filterIn(order, scope)
	}
	if p.Steps, p.Uncompared, err = d.planAll(ctx, order); err != nil {
		return nil, err
	}
	if err := rollEdges(g, d.steps); err != nil {
		return nil, err
	}
	sort.Slice(p.Steps, func(i, j int) bool { return p.Steps[i].Addr < p.Steps[j].Addr })
	var live *resources.RunContext
	if !o.NoRefresh && !o.Destroy {
		live = rc
	}
	if err := checkPlan(ctx, live, p, kinds, have); err != nil {
		return nil, err
	}
	return p, nil
}

// recordedObjects are prior's resources by address. The plan's refresh
// replaces their attributes with the live ones.
func recordedObjects(prior *state.State, kinds map[string]resources.Kind) (map[string]*resources.Object, error) {
	have := map[string]*resources.Object{}
	if prior == nil {
		return have, nil
	}
	for i := range prior.Resources {
		obj := toObject(&prior.Resources[i])
		if _, ok := kinds[obj.Kind]; !ok {
			return nil, errorf("state: %s has unknown kind %q (written by a newer eggo?)", obj.Addr, obj.Kind)
		}
		have[obj.Addr] = obj
	}
	return have, nil
}

// desiredByAddr indexes desired by address, refusing a kind not known.
func desiredByAddr(desired []resources.Desired, kinds map[string]resources.Kind) (map[string]*resources.Desired, error) {
	want := make(map[string]*resources.Desired, len(desired))
	for i := range desired {
		d := &desired[i]
		if _, ok := kinds[d.Kind]; !ok {
			return nil, errorf("%s: unknown resource kind %q", d.Addr, d.Kind)
		}
		want[d.Addr] = d
	}
	return want, nil
}

// replaceSet is -replace as a set; each must name a resource.
func replaceSet(addrs []string, want map[string]*resources.Desired, have map[string]*resources.Object) (map[string]bool, error) {
	replace := map[string]bool{}
	for _, a := range addrs {
		if want[a] == nil && have[a] == nil {
			return nil, errorf("-replace=%s: no such resource in the configuration or the state", a)
		}
		replace[a] = true
	}
	return replace, nil
}

// deploying says whether a plan against prior continues the cluster's
// first deploy: nothing recorded yet, or a deploy that has not finished
// without failures (state.DeployPending), so a re-run after a failed
// deploy runs deploy hooks, not join hooks.
func deploying(o options, prior *state.State) bool {
	if o.Destroy {
		return false
	}
	return prior == nil || len(prior.Resources) == 0 || prior.DeployPending
}
