package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

// hookKind is the Kind of a hook step. Hook steps are not resources: they
// are never in state.Resources, only in its hook run records.
const hookKind = "hook"

// HookRunAction is the Action of a hook step.
const HookRunAction resources.Action = "run"

// hostKind is the kind whose create or delete tells a node's operation.
const hostKind = resources.KindHost

// HookStep is what a hook step runs, carried in the plan so a saved plan
// runs exactly the hook it showed.
type HookStep struct {
	Name    string           `json:"name"`
	Event   hook.Event       `json:"event"`
	Scope   hook.Scope       `json:"scope"`
	Node    hook.Node        `json:"node"`
	Cluster hook.ClusterInfo `json:"cluster"`
	// Covers are the nodes whose operation the hook wraps: one for a
	// node-scope hook, every node of the operation for a cluster-scope one.
	Covers []string  `json:"covers"`
	Def    hook.Hook `json:"definition"`
	// Local runs the hook on this machine (run_on = "operator"); Node
	// still fills its EGGO_NODE_* variables.
	Local bool `json:"local,omitempty"`
}

// nodeOperation derives the hook operation of one node's steps. The host
// resource tells a node's arrival (deploy into an empty state, join into
// a running cluster) and departure (delete); otherwise an upgrade reason
// on any step makes it an upgrade. Any other change (a config edit) runs
// no hook: the seeds hook only these five operations.
func nodeOperation(steps []*Step, destroy, priorEmpty bool) (hook.Operation, bool) {
	if destroy {
		return hook.Cleanup, true
	}
	for _, s := range steps {
		if s.Kind != hostKind {
			continue
		}
		switch s.Action {
		case resources.Create, resources.Replace:
			// A replaced host is prepared anew and enters a running cluster.
			if priorEmpty {
				return hook.Deploy, true
			}
			return hook.Join, true
		case resources.Delete:
			return hook.Delete, true
		}
	}
	for _, s := range steps {
		for _, r := range s.Reasons {
			if r.Code == resources.ReasonUpgrade {
				return hook.Upgrade, true
			}
		}
	}
	return "", false
}

// placeHooks adds a step for every hook × event × node (or once for a
// cluster-scope hook) the plan's operations call for, with its edges:
// a pre step runs before every step of the operation it wraps, a post step
// after all of them. hooks are the configuration's. priorEmpty is true when the state had no resources.
func placeHooks(p *Plan, c *resources.Cluster, hooks []hook.Hook, priorEmpty bool) error {
	if c == nil || len(hooks) == 0 {
		return nil
	}
	byNode := map[string][]*Step{}
	for _, s := range p.Steps {
		if s.Node != "" && s.Action != resources.NoOp && s.Kind != hookKind {
			byNode[s.Node] = append(byNode[s.Node], s)
		}
	}
	ops := map[string]hook.Operation{}
	for _, n := range slices.Sorted(maps.Keys(byNode)) {
		if op, ok := nodeOperation(byNode[n], p.Destroy, priorEmpty); ok {
			ops[n] = op
		}
	}
	if len(ops) == 0 {
		return nil
	}
	pl := newPlacer(p, c, byNode)
	// Post steps first: a pre step then also waits for the post hooks of
	// what its operation waits for (in a roll, the second node's
	// pre-upgrade hook waits for the first node's post-upgrade check).
	for _, timing := range []hook.Timing{hook.Post, hook.Pre} {
		for i := range hooks {
			h := &hooks[i]
			for _, e := range h.On {
				if e.Timing != timing {
					continue
				}
				nodes := nodesOf(ops, e.Operation)
				if len(nodes) == 0 {
					continue
				}
				if h.Scope == hook.ClusterScope {
					pl.add(h, e, pl.clusterNode(nodes), nodes)
					continue
				}
				for _, n := range nodes {
					if model := pl.model(n); h.Selects(&model) {
						pl.add(h, e, n, []string{n})
					}
				}
			}
		}
	}
	sort.Slice(p.Steps, func(i, j int) bool { return p.Steps[i].Addr < p.Steps[j].Addr })
	p.index, p.indexOnce = nil, sync.Once{} // steps were added: rebuild the index
	return checkAcyclic(p)
}

func nodesOf(ops map[string]hook.Operation, op hook.Operation) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(ops)) {
		if ops[n] == op {
			out = append(out, n)
		}
	}
	return out
}

// placer builds hook steps over the plan's resource steps.
type placer struct {
	p       *Plan
	c       *resources.Cluster
	byNode  map[string][]*Step
	deps    map[string][]string // resource steps' own edges, before any hook edge
	waiters map[string][]string // the reverse of deps
}

func newPlacer(p *Plan, c *resources.Cluster, byNode map[string][]*Step) *placer {
	pl := &placer{p: p, c: c, byNode: byNode, deps: map[string][]string{}, waiters: map[string][]string{}}
	for _, s := range p.Steps {
		pl.deps[s.Addr] = slices.Clone(s.WaitsFor)
		for _, d := range s.WaitsFor {
			pl.waiters[d] = append(pl.waiters[d], s.Addr)
		}
	}
	return pl
}

// model is the node as the hook's selection sees it: from the
// configuration, or from its recorded host when it left the configuration.
func (pl *placer) model(name string) resources.Node {
	for _, n := range pl.c.Nodes {
		if n.Name == name {
			return n
		}
	}
	hn := pl.hookNode(name)
	return resources.Node{Name: name, Address: hn.IP, Arch: hn.Arch, Roles: hn.Roles}
}

func (pl *placer) hookNode(name string) hook.Node {
	for _, n := range pl.c.Nodes {
		if n.Name == name {
			return hook.NodeOf(n)
		}
	}
	for _, s := range pl.byNode[name] {
		if s.Kind == hostKind && s.Prior != nil {
			return hook.NodeFromHost(name, s.Prior.Attrs)
		}
	}
	return hook.Node{Name: name}
}

// clusterNode is where a cluster-scope hook runs: the cluster's first
// master, else the first node of the operation.
func (pl *placer) clusterNode(nodes []string) string {
	for _, n := range pl.c.Nodes {
		if n.HasRole("master") {
			return n.Name
		}
	}
	return nodes[0]
}

func hookAddr(h *hook.Hook, e hook.Event, node string) string {
	key := e.String()
	if h.Scope != hook.ClusterScope {
		key += "/" + node
	}
	return fmt.Sprintf("hook.%s[%q]", h.Name, key)
}

// add places one hook step running on node around the operation of covers.
func (pl *placer) add(h *hook.Hook, e hook.Event, node string, covers []string) {
	var wrapped []*Step
	for _, n := range covers {
		wrapped = append(wrapped, pl.byNode[n]...)
	}
	local := h.OnOperator && h.Scope == hook.ClusterScope && h.Type == hook.TypeShell
	s := &Step{
		Change: resources.Change{Addr: hookAddr(h, e, node), Kind: hookKind, Node: node, Action: HookRunAction,
			Reasons: []resources.Reason{{Code: resources.ReasonHook, Detail: fmt.Sprintf("%s of %s", e, joinNames(covers))}}},
		Hook: &HookStep{Name: h.Name, Event: e, Scope: h.Scope, Node: pl.hookNode(node), Cluster: hook.ClusterOf(pl.c),
			Covers: covers, Def: *h, Local: local},
	}
	if local {
		s.Node = "" // reaching no host: an unreachable first master does not stop it
	}
	if e.Timing == hook.Pre {
		// The pre step waits for what the operation's first steps wait
		// for, so it runs just before the operation starts and not at the
		// start of the run: in a rolling upgrade the second node's
		// pre-upgrade hook runs when the first node is done, not while it
		// is down. Only the first steps: a worker's kubelet waits for the
		// masters, but its pre-deploy hook need not hold back the upload
		// of its bundle until then. A prerequisite that itself depends on
		// the operation is left out (it would make a cycle); the operation
		// still waits for it.
		inOp := map[string]bool{}
		for _, w := range wrapped {
			inOp[w.Addr] = true
		}
		after := pl.dependents(inOp)
		for _, w := range wrapped {
			if pl.entry(w, inOp) {
				for _, d := range w.WaitsFor {
					if !inOp[d] && !after[d] && !contains(s.WaitsFor, d) {
						s.WaitsFor = append(s.WaitsFor, d)
					}
				}
			}
			w.WaitsFor = append(w.WaitsFor, s.Addr)
			sort.Strings(w.WaitsFor)
		}
	} else {
		// The post step sits on the edges out of the operation: it waits
		// for all of it, and what waited on the operation now waits on the
		// hook too, so an aborting post hook (a failed health check after
		// a master's deploy, after one node of a roll) stops exactly what
		// would have built on the operation. A dependent that the operation
		// itself waits for, directly or not, is left out (a cycle).
		inOp := map[string]bool{}
		for _, w := range wrapped {
			inOp[w.Addr] = true
			s.WaitsFor = append(s.WaitsFor, w.Addr)
		}
		before := pl.prerequisites(inOp)
		for _, w := range wrapped {
			for _, d := range pl.waiters[w.Addr] {
				if inOp[d] || before[d] {
					continue
				}
				ds := pl.p.Step(d)
				if ds != nil && !contains(ds.WaitsFor, s.Addr) {
					ds.WaitsFor = append(ds.WaitsFor, s.Addr)
					sort.Strings(ds.WaitsFor)
				}
			}
		}
	}
	sort.Strings(s.WaitsFor)
	pl.p.Steps = append(pl.p.Steps, s)
}

// entry says whether w is a first step of its operation: it waits on no
// other step of the operation.
func (pl *placer) entry(w *Step, inOp map[string]bool) bool {
	for _, d := range pl.deps[w.Addr] {
		if inOp[d] {
			return false
		}
	}
	return true
}

// prerequisites is every step one of set waits on, directly or not.
func (pl *placer) prerequisites(set map[string]bool) map[string]bool {
	return closure(set, pl.deps)
}

// dependents is every step that waits, directly or not, on one of set.
func (pl *placer) dependents(set map[string]bool) map[string]bool {
	return closure(set, pl.waiters)
}

// closure is every address reachable from set along edges.
func closure(set map[string]bool, edges map[string][]string) map[string]bool {
	seen := map[string]bool{}
	var queue []string
	for a := range set {
		queue = append(queue, a)
	}
	for len(queue) > 0 {
		a := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, w := range edges[a] {
			if !seen[w] {
				seen[w] = true
				queue = append(queue, w)
			}
		}
	}
	return seen
}

func joinNames(ns []string) string {
	if len(ns) == 1 {
		return ns[0]
	}
	return fmt.Sprintf("%d nodes (%s … %s)", len(ns), ns[0], ns[len(ns)-1])
}

// checkAcyclic proves the plan with its hook steps is still a DAG.
func checkAcyclic(p *Plan) error {
	g, err := stepGraph(p)
	if err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return blameCycleHook(p, err)
	}
	return nil
}

// blameCycleHook is a cycle the hook steps made: the events of the first
// hook on it (its on attribute) are what placed it there. A hook from the
// command line has no block to point at.
func blameCycleHook(p *Plan, err error) error {
	var ce *graph.CycleError
	if errors.As(err, &ce) {
		for _, c := range ce.Cycles {
			for _, addr := range c {
				if s := p.Step(addr); s != nil && s.Hook != nil && !s.Hook.Def.Ranges.Block.IsZero() {
					return resources.Blame(s.Hook.Def.Ranges.At("on"), "Hook steps make a cycle",
						"placing hooks: %v (hook %q on %s)", err, s.Hook.Name, s.Hook.Event)
				}
			}
		}
	}
	return fmt.Errorf("placing hooks: %w", err)
}
