package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
)

// planGraph builds the run's graph. Creates and updates wait for what they
// depend on; deletes run in reverse: a resource that is going away waits for
// the deletion of everything recorded as depending on it. refs are want's
// references (refsByAddr).
func planGraph(want map[string]*resources.Desired, have map[string]*resources.Object, refs map[string]desiredRefs) (*graph.Graph, error) {
	wantAddrs, haveAddrs := slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(have))
	vertices, edges := len(want), 0
	for a := range have {
		if want[a] == nil {
			vertices++
		}
	}
	for _, d := range want {
		edges += len(d.DependsOn)
	}
	for _, r := range refs {
		edges += len(r.addrs)
	}
	g := graph.NewSized(vertices, edges)
	for _, a := range wantAddrs {
		g.Add(a)
	}
	for _, a := range haveAddrs {
		g.Add(a)
	}
	// The wanted are the first vertices: an id below len(wantAddrs) is a
	// wanted resource's, so an edge costs one lookup of its dependency.
	for i, a := range wantAddrs {
		if err := connectWanted(g, len(wantAddrs), want[a], i, refs[a].addrs); err != nil {
			return nil, err
		}
	}
	for _, a := range haveAddrs {
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

// connectWanted makes the desired resource d (vertex id) a wait for what
// it depends on and then for what it refers to (refAddrs). The first
// wanted vertices of g are the wanted resources.
func connectWanted(g *graph.Graph, wanted int, d *resources.Desired, id int, refAddrs []string) error {
	for _, deps := range [2][]string{d.DependsOn, refAddrs} {
		for _, dep := range deps {
			depID, ok := g.ID(dep)
			if !ok || depID >= wanted {
				// The kind that declared d (a node's depends_on, by then
				// checked by the configuration, or a reference) is at fault.
				return resources.Blame(d.Where(), "Undeclared dependency", "%s: depends on %s, which is not declared", d.Addr, dep)
			}
			if err := g.ConnectIDs(id, depID); err != nil {
				return err
			}
		}
	}
	return nil
}

// targetScope is the set of addresses -target selects (nil: everything).
// A create or update target brings what it depends on; a destroy target
// brings what depends on it, since those must go first.
func targetScope(g *graph.Graph, o options) (map[string]bool, []string, error) {
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
