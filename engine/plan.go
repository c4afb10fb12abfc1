package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// Plan is what a run will do. It is the execution graph itself: a saved
// plan is applied exactly as it was shown, never re-derived.
type Plan struct {
	// Lineage and Serial of the state the plan was made against ("" / 0
	// for no state); applying refuses if the state moved since.
	Lineage    string `json:"lineage"`
	Serial     uint64 `json:"serial"`
	ConfigHash string `json:"config_hash"`
	Destroy    bool   `json:"destroy"`
	// Force was given: deletes on unreachable hosts drop from state.
	Force bool `json:"force,omitempty"`
	// Steps in a stable order (by address); each carries its edges.
	Steps []*Step `json:"steps"`
	// Outputs evaluated from the configuration (sensitive ones redacted by views).
	Outputs []Output `json:"outputs,omitempty"`
	// Warnings that do not stop the plan (e.g. -target in use).
	Warnings []string `json:"warnings,omitempty"`
	// OutputsChanged is true when the outputs differ from those in state:
	// applying records them even if no resource changes.
	OutputsChanged bool `json:"outputs_changed,omitempty"`
	// Variables it was planned with (-var, -var-file), so applying the
	// saved plan loads the configuration the same way.
	VarArgs  []string `json:"var_args,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
	// Deploying is true while the cluster's first deploy is under way
	// (an empty state, or one whose deploy has not yet finished without
	// failures): nodes it creates are deployed, not joined, and applying
	// it keeps state.DeployPending until it succeeds.
	Deploying bool `json:"deploying,omitempty"`
	// Unreadable lists the state's sealed values no identity given could
	// decrypt: the plan shows what it can; apply refuses.
	Unreadable []string `json:"unreadable,omitempty"`
	// Uncompared are resources whose comparison needed those values:
	// planned as no-ops and listed, never guessed.
	Uncompared []string `json:"uncompared,omitempty"`
	// Secrets is how applying changes the encryption of the state's
	// secrets (nil: none).
	Secrets *SecretsChange `json:"secrets,omitempty"`
	// HostKeys are host keys applying pins into the state or forgets.
	HostKeys []HostKeyChange `json:"host_keys,omitempty"`

	index     map[string]*Step
	indexOnce sync.Once
}

// Step is one resource's planned change and where it sits in the graph.
type Step struct {
	resources.Change
	// Desired is what the configuration asked for (nil for a delete).
	Desired *resources.Desired `json:"desired,omitempty"`
	// Prior is the refreshed recorded object (nil for a create).
	Prior *resources.Object `json:"prior,omitempty"`
	// After is the edge list: addresses this step waits for.
	WaitsFor []string `json:"waits_for,omitempty"`
	// Sensitive attribute names (never rendered).
	Sensitive []string `json:"sensitive,omitempty"`
	// Hook is set on a hook step (Kind "hook"): what it runs, and where.
	Hook *HookStep `json:"hook,omitempty"`
}

// Output is one output value.
type Output struct {
	Name      string `json:"name"`
	Value     any    `json:"value"`
	Sensitive bool   `json:"sensitive,omitempty"`
}

// Counts tallies a plan the way its summary line does.
type Counts struct{ Add, Change, Destroy int }

// Counts returns "X to add, Y to change, Z to destroy" figures; a replace
// counts as one add and one destroy.
func (p *Plan) Counts() Counts {
	var c Counts
	for _, s := range p.Steps {
		c.tally(s.Action)
	}
	return c
}

// tally counts one action; a replace is one add and one destroy.
func (c *Counts) tally(a resources.Action) {
	switch a {
	case resources.Create:
		c.Add++
	case resources.Update:
		c.Change++
	case resources.Delete:
		c.Destroy++
	case resources.Replace:
		c.Add++
		c.Destroy++
	}
}

// HasChanges reports whether applying would do anything.
func (p *Plan) HasChanges() bool {
	if p.OutputsChanged || p.Secrets != nil || len(p.HostKeys) > 0 {
		return true
	}
	for _, s := range p.Steps {
		if s.Action != resources.NoOp {
			return true
		}
	}
	return false
}

// Step returns the step for an address.
func (p *Plan) Step(addr string) *Step {
	// Built once: apply looks steps up from parallel goroutines.
	p.indexOnce.Do(func() {
		p.index = make(map[string]*Step, len(p.Steps))
		for _, s := range p.Steps {
			p.index[s.Addr] = s
		}
	})
	return p.index[addr]
}

// Error is an engine failure that is not a configuration diagnostic.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

func joinPath(dir, name string) string { return filepath.Join(dir, name) }

// MakePlan reads the state, refreshes it from the hosts and diffs it
// against loaded (from LoadConfig, without errors). Its one error is
// whatever stopped the plan; the configuration's diagnostics are
// LoadConfig's to report.
func MakePlan(ctx context.Context, o Options, loaded *Loaded) (*Plan, error) {
	o.defaults()
	prior, err := o.readState()
	if err != nil {
		return nil, err
	}
	if prior != nil {
		// Workers keep the pod subnets they were given (refreshed or not).
		resources.RecallPodSubnets(loaded.Config.Cluster, (&recorder{st: prior}).recorded)
	}
	desired, err := expand(o.Kinds, loaded.Config.Cluster)
	if err != nil {
		return nil, err
	}
	rc, done := o.runContext()
	defer done()
	pins := newHostPins(prior, nil)
	rc.PinHostKeys(pins)
	p, err := plan(ctx, o, rc, desired, prior)
	if err == nil {
		var warnings []string
		p.HostKeys, warnings = planHostKeys(ctx, o, rc, pins, loaded.Config.Cluster, prior)
		p.Warnings = append(p.Warnings, warnings...)
	}
	if err != nil {
		return nil, err
	}
	p.Deploying = deploying(o, prior) && p.HasChanges()
	if err := placeHooks(p, loaded.Config.Cluster, p.Deploying); err != nil {
		return nil, err
	}
	p.ConfigHash = loaded.Config.Hash
	p.VarArgs, p.VarFiles = o.Vars.Vars, o.Vars.VarFiles
	p.Outputs = outputs(loaded.Config)
	var priorOutputs map[string]any
	if prior != nil {
		priorOutputs = prior.Outputs
	}
	want := outputMap(p.Outputs)
	if o.Destroy {
		want = nil
	}
	p.OutputsChanged = !resources.Equal(map[string]any(priorOutputs), map[string]any(want))
	return p, nil
}

func outputs(cfg *config.Config) []Output {
	var out []Output
	for _, o := range cfg.Outputs {
		out = append(out, Output{Name: o.Name, Value: ctyToJSON(o.Value), Sensitive: o.Sensitive})
	}
	return out
}

// expand asks every kind for its desired resources.
func expand(kinds []resources.Kind, c *resources.Cluster) ([]resources.Desired, error) {
	var all []resources.Desired
	seen := map[string]string{}
	for _, k := range kinds {
		ds, err := k.Expand(c)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if src, dup := seen[d.Addr]; dup {
				return nil, errorf("%s: %s is declared twice (first at %s)", d.Source, d.Addr, src)
			}
			seen[d.Addr] = d.Source
			all = append(all, d)
		}
	}
	return all, nil
}

func kindIndex(kinds []resources.Kind) map[string]resources.Kind {
	m := make(map[string]resources.Kind, len(kinds))
	for _, k := range kinds {
		m[k.Name()] = k
	}
	return m
}

// plan diffs desired against prior. It is the core shared by plan, apply and
// destroy, and by the engine's tests (which pass desired directly).
func plan(ctx context.Context, o Options, rc *resources.RunContext, desired []resources.Desired, prior *state.State) (*Plan, error) {
	kinds := kindIndex(o.Kinds)
	p := &Plan{Destroy: o.Destroy, Force: o.Force}
	if prior != nil {
		p.Lineage, p.Serial = prior.Lineage, prior.Serial
		p.Unreadable = prior.Unreadable()
	}
	if !o.Destroy {
		p.Secrets = secretsChange(prior, o.Keyring)
	}
	if o.Destroy {
		desired = nil
	}
	want := make(map[string]*resources.Desired, len(desired))
	for i := range desired {
		d := &desired[i]
		if _, ok := kinds[d.Kind]; !ok {
			return nil, errorf("%s: unknown resource kind %q", d.Addr, d.Kind)
		}
		want[d.Addr] = d
	}
	have := map[string]*resources.Object{}
	if prior != nil {
		for i := range prior.Resources {
			obj := toObject(&prior.Resources[i])
			if _, ok := kinds[obj.Kind]; !ok {
				return nil, errorf("state: %s has unknown kind %q (written by a newer eggo?)", obj.Addr, obj.Kind)
			}
			have[obj.Addr] = obj
		}
	}
	sealed := sealedAttrs(prior)
	rc.Recorded = func(kind string) []resources.Object { return recordedOf(have, kind) }
	rc.Destroy, rc.Force, rc.WorkDir = o.Destroy, o.Force, filepath.Dir(o.StatePath)
	g, err := planGraph(want, have)
	if err != nil {
		return nil, err
	}
	scope, warnings, err := targetScope(g, o)
	if err != nil {
		return nil, err
	}
	p.Warnings = warnings
	drift, err := refresh(ctx, o, rc, kinds, have, scope)
	if err != nil {
		return nil, err
	}
	replace := map[string]bool{}
	for _, a := range o.Replace {
		if want[a] == nil && have[a] == nil {
			return nil, errorf("-replace=%s: no such resource in the configuration or the state", a)
		}
		replace[a] = true
	}
	// In dependency order, so a resource referring to another knows
	// whether that one keeps its recorded values.
	order, err := g.TopoOrder()
	if err != nil {
		return nil, err
	}
	steps := make(map[string]*Step, len(order))
	for _, addr := range order {
		if scope != nil && !scope[addr] {
			continue
		}
		d := want[addr]
		var carried []string
		if d != nil {
			resolved, secret := resolveForPlan(d, steps, have, kinds)
			d, carried = &resolved, secret
		}
		st, err := planOne(ctx, rc, kinds, d, have[addr], drift[addr], replace[addr], o.Destroy)
		if err != nil {
			return nil, err
		}
		if st.Action != resources.NoOp && st.Action != resources.Delete && onlySealedChanged(st, want[addr], sealed) {
			// Its comparison used values no identity opened: what it
			// says is not known. Shown as not compared, never guessed.
			st.Action, st.Reasons = resources.NoOp, nil
			p.Uncompared = append(p.Uncompared, addr)
		}
		if want[addr] != nil {
			st.Desired = want[addr] // with its Refs: apply resolves them
		}
		st.WaitsFor = g.DependenciesOf(addr)
		if scope != nil {
			st.WaitsFor = filterIn(st.WaitsFor, scope)
		}
		st.Sensitive = unionSorted(sensitiveOf(kinds[st.Kind]), carried)
		steps[addr] = st
		p.Steps = append(p.Steps, st)
	}
	if err := rollEdges(g, steps); err != nil {
		return nil, err
	}
	sort.Slice(p.Steps, func(i, j int) bool { return p.Steps[i].Addr < p.Steps[j].Addr })
	if err := checkPlan(p, kinds, have); err != nil {
		return nil, err
	}
	return p, nil
}

func filterIn(names []string, in map[string]bool) []string {
	var out []string
	for _, n := range names {
		if in[n] {
			out = append(out, n)
		}
	}
	return out
}

func sensitiveOf(k resources.Kind) []string {
	var s []string
	for name, a := range k.Schema().Attributes {
		if a.Sensitive {
			s = append(s, name)
		}
	}
	sort.Strings(s)
	return s
}

// planGraph builds the run's graph. Creates and updates wait for what they
// depend on; deletes run in reverse: a resource that is going away waits for
// the deletion of everything recorded as depending on it.
func planGraph(want map[string]*resources.Desired, have map[string]*resources.Object) (*graph.Graph, error) {
	g := graph.New()
	for _, a := range sortedKeys(want) {
		g.Add(a)
	}
	for _, a := range sortedKeys(have) {
		g.Add(a)
	}
	for _, a := range sortedKeys(want) {
		for _, dep := range append(append([]string(nil), want[a].DependsOn...), refEdges(want[a])...) {
			if want[dep] == nil {
				return nil, errorf("%s: depends on %s, which is not declared", a, dep)
			}
			if err := g.Connect(a, dep); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range sortedKeys(have) {
		if want[a] != nil {
			continue
		}
		for _, dep := range have[a].DependsOn {
			if have[dep] != nil && want[dep] == nil {
				if err := g.Connect(dep, a); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// targetScope is the set of addresses -target selects (nil: everything).
// A create or update target brings what it depends on; a destroy target
// brings what depends on it, since those must go first.
func targetScope(g *graph.Graph, o Options) (map[string]bool, []string, error) {
	if len(o.Targets) == 0 {
		return nil, nil, nil
	}
	for _, t := range o.Targets {
		if !g.Has(t) {
			return nil, nil, errorf("-target=%s: no such resource in the configuration or the state", t)
		}
	}
	src := g
	if o.Destroy {
		src = g.Reverse()
	}
	sub, err := src.WithDependencies(o.Targets)
	if err != nil {
		return nil, nil, err
	}
	scope := map[string]bool{}
	for _, n := range sub.Names() {
		scope[n] = true
	}
	warn := fmt.Sprintf("Resource targeting is in effect (%s): the plan may be incomplete; use -target only to recover from errors.", strings.Join(o.Targets, ", "))
	return scope, []string{warn}, nil
}

// planOne decides one resource's change.
func planOne(ctx context.Context, rc *resources.RunContext, kinds map[string]resources.Kind, want *resources.Desired, have *resources.Object, drift []resources.Reason, replace, destroy bool) (*Step, error) {
	switch {
	case want == nil && have == nil:
		return nil, errorf("internal: empty step")
	case want == nil:
		reason := resources.Reason{Code: resources.ReasonRemoved}
		if destroy {
			reason = resources.Reason{Code: resources.ReasonDestroy}
		}
		return &Step{
			Change: resources.Change{Addr: have.Addr, Kind: have.Kind, Node: have.Node, Action: resources.Delete,
				Before: have.Attrs, Reasons: []resources.Reason{reason}},
			Prior: have,
		}, nil
	}
	k := kinds[want.Kind]
	if have != nil && have.Attrs == nil {
		// The refresh found it gone: plan it as new, recording why.
		ch, err := k.Plan(ctx, rc, nil, *want)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", want.Addr, err)
		}
		ch.Reasons = []resources.Reason{{Code: resources.ReasonGone, Detail: "recorded in state but no longer on the host"}}
		return &Step{Change: ch, Desired: want}, nil
	}
	ch, err := k.Plan(ctx, rc, have, *want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", want.Addr, err)
	}
	if ch.Addr == "" {
		ch.Addr, ch.Kind, ch.Node = want.Addr, want.Kind, want.Node
	}
	if ch.Action != resources.NoOp && ch.Action != resources.Create {
		ch.Reasons = mergeReasons(ch.Reasons, drift)
	}
	if replace && have != nil && ch.Action != resources.Create {
		if ch.Action == resources.NoOp || ch.Action == resources.Update {
			// What the kind computes comes anew: a replaced CA's
			// certificate is not the recorded one.
			ch.After = unknownComputed(k.Schema(), ch.After)
		}
		ch.Action = resources.Replace
		ch.Reasons = mergeReasons(ch.Reasons, []resources.Reason{{Code: resources.ReasonReplaceRequested, Detail: "-replace=" + want.Addr}})
	}
	return &Step{Change: ch, Desired: want, Prior: have}, nil
}

func mergeReasons(a, b []resources.Reason) []resources.Reason {
	seen := map[resources.Reason]bool{}
	var out []resources.Reason
	for _, r := range append(append([]resources.Reason{}, a...), b...) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// Validate checks what the resource kinds need beyond the language (for
// example that the package bundle has every file the nodes' roles need).
func Validate(o Options, l *Loaded) error {
	o.defaults()
	_, err := expand(o.Kinds, l.Config.Cluster)
	return err
}

// unknownComputed is a copy of attrs with every computed attribute unknown.
func unknownComputed(schema resources.Schema, attrs resources.Attrs) resources.Attrs {
	out := make(resources.Attrs, len(attrs))
	for k, v := range attrs {
		out[k] = v
	}
	for name, a := range schema.Attributes {
		if a.Computed {
			out[name] = resources.Unknown{}
		}
	}
	return out
}

// deploying says whether a plan against prior continues the cluster's
// first deploy: nothing recorded yet, or a deploy that has not finished
// without failures (state.DeployPending), so a re-run after a failed
// deploy runs deploy hooks, not join hooks.
func deploying(o Options, prior *state.State) bool {
	if o.Destroy {
		return false
	}
	return prior == nil || len(prior.Resources) == 0 || prior.DeployPending
}
