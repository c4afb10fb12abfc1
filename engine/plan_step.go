package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
)

// differ decides the plan's steps one address at a time, in dependency
// order: a step resolves its references against the steps before it.
type differ struct {
	rc      *resources.RunContext
	destroy bool
	kinds   map[string]resources.Kind
	schemas *schemas
	want    map[string]*resources.Desired
	refs    map[string]desiredRefs       // of want, walked once (refsByAddr)
	have    map[string]*resources.Object // refreshed
	drift   map[string][]resources.Reason
	replace map[string]bool
	sealed  map[string]map[string]bool // attributes no identity opened
	g       *graph.Graph
	scope   map[string]bool // -target (nil: everything)

	mu    sync.RWMutex // steps are decided on every core (planAll)
	steps map[string]*Step
}

// stepOf is addr's step if it is decided (nil otherwise).
func (d *differ) stepOf(addr string) *Step {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.steps[addr]
}

// step decides addr's step and records it. uncompared: its comparison
// needed sealed values no identity opened, so it is planned as a no-op.
func (d *differ) step(ctx context.Context, addr string) (st *Step, uncompared bool, err error) {
	want := d.want[addr]
	resolved := want
	var carried []string
	if want != nil {
		r, secret := resolveForPlan(want, d.refs[addr].attrs, d.stepOf, d.have, d.schemas)
		resolved, carried = &r, secret
	}
	st, err = planOne(ctx, d.rc, d.kinds, resolved, d.have[addr], d.drift[addr], d.replace[addr], d.destroy)
	if err != nil {
		return nil, false, err
	}
	if have := d.have[addr]; st.Action != resources.NoOp && st.Action != resources.Delete &&
		(onlySealedChanged(st, want, d.sealed) || createdOverSealed(st, have, d.sealed)) {
		// What it says is not known: shown as not compared, never guessed.
		// Those that build on it see what is recorded, as for a no-op.
		st.Action, st.Reasons = resources.NoOp, nil
		if have != nil && have.Attrs != nil {
			st.Before, st.After, st.Changed = have.Attrs, have.Attrs, nil
		}
		uncompared = true
	}
	if want != nil {
		st.Desired = want // with its Refs: apply resolves them
	}
	st.WaitsFor = d.g.DependenciesOf(addr)
	if d.scope != nil {
		st.WaitsFor = filterIn(st.WaitsFor, d.scope)
	}
	var sensitive []string
	if ks := d.schemas.of(st.Kind); ks != nil {
		sensitive = ks.sensitive
	}
	st.Sensitive = resources.SortedUnion(sensitive, carried)
	d.mu.Lock()
	d.steps[addr] = st
	d.mu.Unlock()
	return st, uncompared, nil
}

// planOne decides one resource's change.
func planOne(ctx context.Context, rc *resources.RunContext, kinds map[string]resources.Kind, want *resources.Desired, have *resources.Object, drift []resources.Reason, replace, destroy bool) (*Step, error) {
	switch {
	case want == nil && have == nil:
		return nil, errorf("internal: empty step")
	case want == nil:
		reasons := []resources.Reason{{Code: resources.ReasonRemoved}}
		if destroy {
			reasons = []resources.Reason{{Code: resources.ReasonDestroy}}
		} else if e, ok := kinds[have.Kind].(resources.DeleteExplainer); ok {
			reasons = append(reasons, e.ExplainDelete(*have)...)
		}
		return &Step{
			Change: resources.Change{Addr: have.Addr, Kind: have.Kind, Node: have.Node, Action: resources.Delete,
				Before: have.Attrs, Reasons: reasons},
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

func filterIn(names []string, in map[string]bool) []string {
	var out []string
	for _, n := range names {
		if in[n] {
			out = append(out, n)
		}
	}
	return out
}

// sensitiveIn lists schema's sensitive attributes, sorted.
func sensitiveIn(schema resources.Schema) []string {
	var s []string
	for name, a := range schema.Attributes {
		if a.Sensitive {
			s = append(s, name)
		}
	}
	sort.Strings(s)
	return s
}
