package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// fullState is the state an apply of the plan from an empty state would
// leave, made by eggo's own code without a host: the plan is made
// in-process, then each step, in dependency order, is planned again by its
// kind against the attributes its references now resolve to, created
// there when its kind works locally (CAs, certificates) and otherwise
// recorded with what the plan said it would be, its computed attributes
// (what only a host can say) filled in as a host would report them.
func fullState(ctx context.Context, req engine.Request) (*state.State, error) {
	ws, err := engine.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	p, err := ws.Plan(ctx, engine.PlanOptions{NoRefresh: true}, nil)
	if err != nil {
		return nil, err
	}
	kinds := map[string]resources.Kind{}
	for _, k := range req.Kinds {
		kinds[k.Name()] = k
	}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	st := state.New()
	st.Serial = 1
	st.EggoVersion = engine.Version
	recorded := map[string]resources.Attrs{}
	var out []state.Resource
	for _, s := range dependencyOrder(p.Steps) {
		if s.Desired == nil {
			return nil, fmt.Errorf("%s: a %s in a plan from an empty state", s.Addr, s.Action)
		}
		attrs, err := created(ctx, rc, kinds[s.Kind], *s.Desired, recorded)
		if err != nil {
			return nil, err
		}
		recorded[s.Addr] = attrs
		deps := slices.Clone(s.WaitsFor)
		slices.Sort(deps)
		out = append(out, state.Resource{Address: s.Addr, Kind: s.Kind, Node: s.Node, Attributes: attrs,
			Dependencies: deps, Sensitive: s.Sensitive})
	}
	st.SetMany(out)
	st.Outputs = map[string]any{}
	for _, op := range p.Outputs {
		st.Outputs[op.Name] = op.Value
	}
	return st, nil
}

// created is what applying d would record: its references resolved
// against what is recorded, then planned by its kind as new; created for
// real by the kinds that need no host.
func created(ctx context.Context, rc *resources.RunContext, k resources.Kind, d resources.Desired, recorded map[string]resources.Attrs) (resources.Attrs, error) {
	var missing error
	d.Attrs = resources.Substitute(d.Attrs, func(r resources.Ref) any {
		a, ok := recorded[r.Addr]
		if !ok && missing == nil {
			missing = fmt.Errorf("%s refers to %s, not recorded before it", d.Addr, r)
		}
		return a[r.Attr]
	}).(resources.Attrs)
	if missing != nil {
		return nil, missing
	}
	ch, err := k.Plan(ctx, rc, nil, d)
	if err != nil {
		return nil, err
	}
	switch k.Name() {
	case "pki", "cert":
		return k.Create(ctx, rc, d, ch)
	}
	return fillComputed(k, d, ch.After)
}

// fillComputed replaces the unknown values of a planned create by what the
// host would have reported; an unknown that is not computed is an error.
func fillComputed(k resources.Kind, d resources.Desired, after resources.Attrs) (resources.Attrs, error) {
	out := make(resources.Attrs, len(after))
	schema := k.Schema().Attributes
	for name, v := range after {
		if _, unknown := v.(resources.Unknown); !unknown {
			out[name] = v
			continue
		}
		if !schema[name].Computed {
			return nil, fmt.Errorf("%s: %s is known only after apply", d.Addr, name)
		}
		if f, ok := hostReported[k.Name()+"."+name]; ok {
			out[name] = f(d)
		}
	}
	return out, nil
}

// hostReported are the computed attributes a host reports when its
// resource is created, by kind.attribute.
var hostReported = map[string]func(d resources.Desired) any{
	"host.facts": func(d resources.Desired) any {
		return map[string]any{"arch": "amd64", "hostname": d.Node, "kernel": "6.1.0-18-amd64", "machine": "x86_64",
			"os": "debian", "os_name": "Debian GNU/Linux 12 (bookworm)", "os_version": "12"}
	},
	"host.created": func(d resources.Desired) any {
		var out []any
		files, _ := d.Attrs["files"].([]any)
		for _, f := range files {
			out = append(out, map[string]any{"path": f.(map[string]any)["path"], "type": "file"})
		}
		return out
	},
	"host.replaced": func(resources.Desired) any { return []any{} },
}

// dependencyOrder is steps with every step after those it waits for.
func dependencyOrder(steps []*engine.Step) []*engine.Step {
	byAddr := make(map[string]*engine.Step, len(steps))
	for _, s := range steps {
		byAddr[s.Addr] = s
	}
	done := make(map[string]bool, len(steps))
	out := make([]*engine.Step, 0, len(steps))
	var visit func(s *engine.Step)
	visit = func(s *engine.Step) {
		if done[s.Addr] {
			return
		}
		done[s.Addr] = true
		for _, w := range s.WaitsFor {
			if d := byAddr[w]; d != nil {
				visit(d)
			}
		}
		out = append(out, s)
	}
	for _, s := range steps {
		visit(s)
	}
	return out
}
