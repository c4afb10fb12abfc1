package config

import (
	"net/netip"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

// assemble puts the evaluated blocks together into the cluster model and
// checks what spans nodes: unique names and addresses, and roles that
// together make a working cluster.
func (l *loader) assemble() (*resources.Cluster, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	c := l.clusters[0].model
	type seen struct {
		nb *nodeBlock
		in *nodeInstance
	}
	total := 0
	for _, nb := range l.nodes {
		total += len(nb.instances)
	}
	c.Nodes = make([]resources.Node, 0, total)
	byName := make(map[string]seen, total)
	byAddr := make(map[string]seen, total)
	for _, nb := range l.nodes {
		for _, in := range nb.instances {
			n := in.model
			c.Nodes = append(c.Nodes, n)
			switch prev, dup := byName[n.Name]; {
			case in.unknown["name"]: // validate mode: not known, so not compared
			case dup:
				diags = append(diags, diagf(in.nameRange, "Duplicate node name",
					"%s is named %s, and so is %s at %s. Node names must be unique; set name = \"...\" on one of them.",
					nb.instanceAddr(in), quoted(n.Name), prev.nb.instanceAddr(prev.in), prev.in.model.Source))
			default:
				byName[n.Name] = seen{nb, in}
			}
			key := addressKey(n.Address)
			switch prev, dup := byAddr[key]; {
			case in.unknown["address"]:
			case dup:
				diags = append(diags, diagf(in.addrRange, "Duplicate node address",
					"%s has address %s, which %s at %s already has. Each node must be a different machine.",
					nb.instanceAddr(in), n.Address, prev.nb.instanceAddr(prev.in), prev.in.model.Source))
			default:
				byAddr[key] = seen{nb, in}
			}
		}
	}
	if len(c.Nodes) == 0 && !diags.HasErrors() && !l.nodesPartial() {
		diags = append(diags, diagf(l.nodes[0].block.DefRange, "No nodes",
			"Every node block expands to zero instances (empty for_each or count = 0); a cluster needs at least one node."))
	}
	if !diags.HasErrors() {
		diags = append(diags, l.checkTopology(&c)...)
	}
	return &c, diags
}

// addressKey normalises an address for comparison: "10.0.0.1" and
// "::ffff:10.0.0.1" or "Host.example" and "host.example." are the same machine.
func addressKey(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return strings.TrimSuffix(strings.ToLower(s), ".")
}
