package config

import (
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

// refuseHookHere refuses, under confinement (confine.go), a shell hook
// that would run on the machine running eggo: run_on = "operator", or a
// node reached with connection type = "local". In a GitOps Job that
// machine is the Job's container, and a script there would run with its
// SSH key, identity and ServiceAccount token.
func (l *loader) refuseHookHere(dec *decoder, hb *hookBlock, h *hook.Hook, c *resources.Cluster) {
	if l.confine == nil || h.Type != hook.TypeShell {
		return
	}
	attrs := hb.content.Attributes
	const why = "what the configuration runs is confined to the nodes (-confine-files, " + ConfineEnv +
		"=1, and always in a GitOps Job, where this machine is the Job's container with its SSH key, identity and ServiceAccount token)"
	if h.OnOperator {
		dec.errorf(attrs["run_on"].Expr.Range(), "Hook would run on this machine",
			"Hook %q has run_on = \"operator\": its scripts would run on the machine running eggo, and %s. "+
				"Run it on the first master (run_on = \"first_master\", the default).", h.Name, why)
		return
	}
	n := localTarget(h, c)
	if n == nil {
		return
	}
	rng := hb.block.DefRange
	for _, name := range []string{"roles", "nodes"} {
		if a := attrs[name]; a != nil {
			rng = a.Expr.Range()
		}
	}
	dec.errorf(rng, "Hook would run on this machine",
		"Hook %q would run on node %s, which is reached with connection type = \"local\": on the machine running eggo, and %s. "+
			"Select nodes reached over SSH.", h.Name, quoted(n.Name), why)
}

// localTarget is a node with a local connection that h would run on (nil
// when none): a node hook's selected nodes; a cluster hook's first master,
// or any node when there is no master (it then runs on the operation's
// first node).
func localTarget(h *hook.Hook, c *resources.Cluster) *resources.Node {
	isLocal := func(n *resources.Node) bool { return n.Connection.Type == "local" }
	if h.Scope == hook.ClusterScope {
		for i := range c.Nodes {
			if n := &c.Nodes[i]; n.HasRole("master") {
				if isLocal(n) {
					return n
				}
				return nil
			}
		}
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if isLocal(n) && (h.Scope == hook.ClusterScope || h.Selects(n)) {
			return n
		}
	}
	return nil
}
