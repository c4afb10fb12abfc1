package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

// stringOrList reads an attribute that may be one string or a list of
// strings (`on = "pre-join"` or `on = ["pre-join", "post-join"]`).
func (d *decoder) stringOrList(attrs hcl.Attributes, name string) ([]string, bool) {
	a := attrs[name]
	v, ok := d.eval(a, cty.DynamicPseudoType)
	if !ok {
		return nil, false
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}, true
	}
	if _, err := convert.Convert(v, cty.List(cty.String)); err != nil {
		d.errorf(a.Expr.Range(), "Incorrect attribute value type",
			"%s must be a string or a list of strings, like [\"pre-join\", \"post-join\"]; got %s.", name, v.Type().FriendlyName())
		return nil, false
	}
	return d.stringList(attrs, name)
}

// decodeHookEvents reads `on`, naming the nearest valid event for the
// spellings of the systems eggo follows (prejoin, PreInstall …).
func decodeHookEvents(dec *decoder, a *hcl.Attribute) []hook.Event {
	if a == nil {
		return nil
	}
	attrs := hcl.Attributes{"on": a}
	list, ok := dec.stringOrList(attrs, "on")
	if !ok {
		return nil
	}
	if len(list) == 0 {
		dec.errorf(a.Expr.Range(), "Hook without events",
			"on lists no event, so the hook would never run. Name at least one, like [\"pre-join\"].")
		return nil
	}
	var out []hook.Event
	for i, s := range list {
		e, ok := hook.ParseEvent(s)
		if !ok {
			dec.errorf(elementRange(a.Expr, i, len(list)), "Unknown hook event",
				"%s is not an event.%s Events are pre- or post- and an operation: %s.",
				strconv.Quote(s), eventHint(s), strings.Join(eventNames(), ", "))
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func eventNames() []string {
	var names []string
	for _, t := range []hook.Timing{hook.Pre, hook.Post} {
		for _, op := range hook.Operations {
			names = append(names, hook.Event{Timing: t, Operation: op}.String())
		}
	}
	return names
}

// eventHint maps openEuler eggo's schedules (prejoin, postcleanup) and
// tkestack's hook types (PreInstall, PostClusterUpgrade) to eggo's events.
func eventHint(s string) string {
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(s))
	cluster := strings.Contains(k, "cluster")
	install := strings.Contains(k, "install")
	k = strings.Replace(k, "cluster", "", 1)
	k = strings.Replace(k, "install", "deploy", 1)
	if cluster {
		k = strings.Replace(k, "delete", "cleanup", 1)
	}
	for _, name := range eventNames() {
		if strings.ReplaceAll(name, "-", "") == k {
			if cluster {
				return fmt.Sprintf(" Did you mean on = %q with scope = \"cluster\"?", name)
			}
			if install { // tkestack installs a node with its cluster or later
				join := strings.Replace(name, "deploy", "join", 1)
				return fmt.Sprintf(" Did you mean [%q, %q]?", name, join)
			}
			return fmt.Sprintf(" Did you mean %q?", name)
		}
	}
	return ""
}

// decodeHookType reads `type`; without one a hook with a web or
// prometheus block is that check, any other a shell hook. The provider
// block must match the type.
func decodeHookType(dec *decoder, hb *hookBlock) hook.Type {
	a := hb.content.Attributes["type"]
	t := hook.TypeShell
	switch {
	case a != nil:
		s := dec.str(hb.content.Attributes, "type", string(hook.TypeShell))
		t = hook.Type(s)
		if t != hook.TypeShell && t != hook.TypeWeb && t != hook.TypePrometheus {
			dec.errorf(a.Expr.Range(), "Invalid hook type",
				"type must be \"shell\" (run scripts), \"web\" or \"prometheus\" (check hooks); got %s.", dec.show(a, s))
			return ""
		}
		if dec.isUnknown(hb.content.Attributes, "type") {
			return "" // validate mode: what depends on the type is not checked
		}
	case hb.web != nil && hb.prom == nil:
		t = hook.TypeWeb
	case hb.prom != nil && hb.web == nil:
		t = hook.TypePrometheus
	}
	name := hb.block.Labels[0]
	if hb.web != nil && hb.prom != nil {
		dec.errorf(hb.prom.DefRange, "Wrong check provider",
			"Hook %q has a web block at %s and a prometheus block: a check hook measures one thing. Split it into two hooks.",
			name, source(hb.web.DefRange))
		return t
	}
	var wrong *hcl.Block
	switch t {
	case hook.TypeShell:
		wrong = hb.web
		if wrong == nil {
			wrong = hb.prom
		}
	case hook.TypeWeb:
		wrong = hb.prom
	case hook.TypePrometheus:
		wrong = hb.web
	}
	if wrong != nil {
		dec.errorf(wrong.DefRange, "Wrong check provider",
			"Hook %q has type = %s, which takes no %s block. Set type = %q, or remove the block.", name, quoted(string(t)), wrong.Type, wrong.Type)
		return t
	}
	if t != hook.TypeShell && hb.web == nil && hb.prom == nil {
		dec.errorf(a.Expr.Range(), "Missing check provider",
			"A %s hook measures what its %s { ... } block describes, and hook %q has none. Add the block, like %s.",
			t, t, name, providerExample[t])
	}
	return t
}

var providerExample = map[hook.Type]string{
	hook.TypeWeb:        `web { url = "http://{{ args.host }}/healthz"  json_path = "{$.status}" }`,
	hook.TypePrometheus: `prometheus { address = "http://prometheus:9090"  query = "up" }`,
}

// Attributes that only one kind of hook takes.
var (
	shellOnlyAttrs = []string{"source", "files", "grace", "run_on"}
	checkOnlyAttrs = []string{"args", "count", "interval", "initial_delay", "success_condition", "failure_condition",
		"failure_limit", "inconclusive_limit", "consecutive_error_limit"}
)

// checkHookAttributes refuses an attribute the hook's type would ignore:
// silently ignoring `count` on a shell hook would hide a mistake.
func checkHookAttributes(dec *decoder, hb *hookBlock, t hook.Type) {
	wrong := checkOnlyAttrs
	if t != hook.TypeShell {
		wrong = shellOnlyAttrs
	}
	if t == "" {
		return
	}
	for _, n := range wrong {
		if a := hb.content.Attributes[n]; a != nil {
			dec.errorf(a.NameRange, "Argument not valid for a "+string(t)+" hook",
				"Hook %q is a %s hook, and %s applies only to %s. Remove it, or set type.",
				hb.block.Labels[0], t, n, otherKind(t))
		}
	}
}

func otherKind(t hook.Type) string {
	if t == hook.TypeShell {
		return "check hooks (type = \"web\" or \"prometheus\")"
	}
	return "shell hooks"
}

// decodeHookScope reads `scope`: node (default) or cluster.
func decodeHookScope(dec *decoder, attrs hcl.Attributes) hook.Scope {
	s := hook.Scope(dec.str(attrs, "scope", string(hook.NodeScope)))
	if s != hook.NodeScope && s != hook.ClusterScope {
		a := attrs["scope"]
		dec.errorf(a.Expr.Range(), "Invalid hook scope",
			"scope must be \"node\" (on each node the operation touches) or \"cluster\" (once per operation, on the first master); got %s.",
			dec.show(a, string(s)))
		return hook.NodeScope
	}
	return s
}

// decodeHookRunOn reads `run_on` of a cluster-scope shell hook:
// "first_master" (the default) or "operator", this machine.
func decodeHookRunOn(dec *decoder, attrs hcl.Attributes, scope hook.Scope) bool {
	a := attrs["run_on"]
	if a == nil {
		return false
	}
	v := dec.str(attrs, "run_on", "first_master")
	switch {
	case dec.isUnknown(attrs, "scope"): // validate mode
	case scope != hook.ClusterScope:
		dec.errorf(a.NameRange, "run_on on a node hook",
			"A node hook runs on each node it selects; run_on chooses where a cluster hook (scope = \"cluster\") runs. Remove run_on, or set scope = \"cluster\".")
	case v == "operator":
		return true
	case v != "first_master":
		dec.errorf(a.Expr.Range(), "Invalid run_on",
			"run_on must be \"first_master\" (the default: on the cluster's first master, over SSH) or \"operator\" (on the machine running eggo); got %s.",
			dec.show(a, v))
	}
	return false
}

// decodeHookTargets reads roles and nodes: every role a known one, every
// node a node of the cluster, neither on a cluster-scope hook.
//
// partial says validate mode does not know all the nodes (nodesPartial):
// then a name cannot be found missing, nor a hook found to select none.
func decodeHookTargets(dec *decoder, hb *hookBlock, h *hook.Hook, c *resources.Cluster, partial bool) {
	attrs := hb.content.Attributes
	for _, n := range []string{"roles", "nodes"} {
		if a := attrs[n]; a != nil && h.Scope == hook.ClusterScope {
			dec.errorf(a.NameRange, "Roles or nodes on a cluster hook",
				"Hook %q has scope = \"cluster\": it runs once per operation, on the first master, so %s selects nothing. "+
					"Remove %s, or make it a node hook (scope = \"node\") that runs on each selected node.", h.Name, n, n)
		}
	}
	if h.Scope == hook.ClusterScope {
		return
	}
	if roles, ok := dec.stringList(attrs, "roles"); ok {
		for i, r := range roles {
			if !slices.Contains(resources.Roles, r) {
				dec.errorf(elementRange(attrs["roles"].Expr, i, len(roles)), "Unknown role",
					"%s is not a role. Roles are %s.", strconv.Quote(r), strings.Join(resources.Roles, ", "))
			}
		}
		h.Roles = roles
	}
	if nodes, ok := dec.stringList(attrs, "nodes"); ok {
		names := make([]string, len(c.Nodes))
		for i, n := range c.Nodes {
			names[i] = n.Name
		}
		for i, n := range nodes {
			if !slices.Contains(names, n) && !partial {
				dec.errorf(elementRange(attrs["nodes"].Expr, i, len(nodes)), "Unknown node",
					"Hook %q names the node %s, and the cluster has no node of that name. Nodes: %s. "+
						"A node block with for_each or count names its nodes by key or LABEL-INDEX, not by its label.",
					h.Name, strconv.Quote(n), text.Some(names, 8))
			}
		}
		h.Nodes = nodes
	}
	if partial || dec.isUnknown(attrs, "scope", "roles", "nodes") {
		return
	}
	if (h.Roles != nil || h.Nodes != nil) && !dec.diags.HasErrors() {
		for i := range c.Nodes {
			if h.Selects(&c.Nodes[i]) {
				return
			}
		}
		rng := hb.block.DefRange
		if a := attrs["roles"]; a != nil {
			rng = a.Expr.Range()
		}
		dec.diags = append(dec.diags, warnf(rng, "Hook selects no node",
			"No node of the cluster has any of the roles or names of hook %q, so it never runs. Check its roles and nodes.", h.Name))
	}
}
