package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

// maxEtcdMembers is etcd's own advice: every write waits for a majority,
// so more members slow writes without useful gain in fault tolerance.
const maxEtcdMembers = 7

// placedNode is one node instance with the block that declared it, so a
// message can name it and point at its roles.
type placedNode struct {
	nb *nodeBlock
	in *nodeInstance
}

func (p placedNode) String() string {
	return fmt.Sprintf("%s (%s)", p.nb.instanceAddr(p.in), p.in.model.Source)
}

// roleRange is the range of one role in the node's roles list when it is
// written as a literal list, else the whole roles expression.
func (p placedNode) roleRange(role string) hcl.Range {
	expr := p.nb.content.Attributes["roles"].Expr
	roles := p.in.model.Roles
	for i, r := range roles {
		if r == role {
			return elementRange(expr, i, len(roles))
		}
	}
	return expr.Range()
}

// checkTopology checks that the roles of all nodes together make a cluster
// that can work: what no single node block can know on its own.
func (l *loader) checkTopology(c *resources.Cluster) hcl.Diagnostics {
	byRole := map[string][]placedNode{}
	var diags hcl.Diagnostics
	for _, nb := range l.nodes {
		for _, in := range nb.instances {
			for _, r := range in.model.Roles {
				byRole[r] = append(byRole[r], placedNode{nb, in})
			}
		}
		diags = append(diags, checkMasterNotLoadBalancer(nb)...)
	}
	// In validate mode some nodes or their roles may not be known
	// (partial): what a check finds missing may be among them, so only
	// the checks that more nodes could not satisfy run.
	partial := l.nodesPartial()
	if !partial {
		diags = append(diags, l.checkControlPlane(c, byRole)...)
	}
	if !l.clusters[0].unknownAttr(false, "api_endpoint") {
		diags = append(diags, checkLoadBalancers(c, byRole["loadbalance"])...)
	}
	if !partial {
		diags = append(diags, checkEtcdCount(byRole["etcd"])...)
		diags = append(diags, checkAddonNodes(l.clusters[0], byRole)...)
	}
	return append(diags, l.checkServiceFamily(c, byRole)...)
}

// checkMasterNotLoadBalancer reports once per block (its instances share
// one roles expression) the nodes that are both master and load balancer.
func checkMasterNotLoadBalancer(nb *nodeBlock) hcl.Diagnostics {
	var both []placedNode
	for _, in := range nb.instances {
		if in.model.HasRole("master") && in.model.HasRole("loadbalance") {
			both = append(both, placedNode{nb, in})
		}
	}
	if len(both) == 0 {
		return nil
	}
	verb := "has"
	if len(both) > 1 {
		verb = "have"
	}
	return hcl.Diagnostics{diagf(both[0].roleRange("loadbalance"), "Node is both master and load balancer",
		"%s %s the roles master and loadbalance, but the apiserver and the load balancer both listen on port %d. "+
			"Give the loadbalance role to a separate node.",
		nodeList(both, 4), verb, resources.APIServerPort)}
}

// checkControlPlane: masters need etcd; workers and load balancers need masters.
func (l *loader) checkControlPlane(c *resources.Cluster, byRole map[string][]placedNode) hcl.Diagnostics {
	var diags hcl.Diagnostics
	masters := byRole["master"]
	if len(masters) > 0 && len(byRole["etcd"]) == 0 {
		diags = append(diags, diagf(l.clusters[0].block.DefRange, "No etcd node",
			"Cluster %q has masters (%s) but no node with the etcd role, and the apiservers keep all cluster data in etcd. "+
				"Add \"etcd\" to the roles of the masters (the usual layout: roles = [\"master\", \"etcd\"]), or add etcd nodes.",
			c.Name, nodeList(masters, 3)))
	}
	if len(masters) > 0 {
		return diags
	}
	if ws := byRole["worker"]; len(ws) > 0 {
		diags = append(diags, diagf(ws[0].roleRange("worker"), "No master node",
			"No node has the master role, but workers join the cluster through the apiservers of the masters. "+
				"Add \"master\" to the roles of a node. The workers: %s.", nodeList(ws, 3)))
	}
	if lbs := byRole["loadbalance"]; len(lbs) > 0 {
		diags = append(diags, diagf(lbs[0].roleRange("loadbalance"), "No master node",
			"No node has the master role, so the load balancers have no apiserver to forward to. "+
				"Add \"master\" to the roles of a node. The load balancers: %s.", nodeList(lbs, 3)))
	}
	return diags
}

// checkLoadBalancers: with several load balancers, clients need one
// address in front of them. Masters that are also load balancers were
// reported already; counting them here would report one mistake twice.
func checkLoadBalancers(c *resources.Cluster, all []placedNode) hcl.Diagnostics {
	var lbs []placedNode
	for _, p := range all {
		if !p.in.model.HasRole("master") {
			lbs = append(lbs, p)
		}
	}
	if len(lbs) < 2 || c.APIEndpoint != "" {
		return nil
	}
	return hcl.Diagnostics{diagf(lbs[1].roleRange("loadbalance"), "Several load balancers and no api_endpoint",
		"These nodes have the loadbalance role and api_endpoint is not set: %s. Which one would clients and kubeconfigs use? "+
			"Put a virtual IP or DNS name in front of them and set api_endpoint = \"VIP:%d\" in the cluster block.",
		nodeList(lbs, 4), resources.APIServerPort)}
}

// checkEtcdCount warns of member counts etcd advises against, at the last
// etcd node: the one that made the count what it is.
func checkEtcdCount(etcds []placedNode) hcl.Diagnostics {
	n := len(etcds)
	switch {
	case n > maxEtcdMembers:
		return hcl.Diagnostics{warnf(etcds[n-1].roleRange("etcd"), "More than 7 etcd nodes",
			"The cluster has %d etcd nodes; etcd advises at most %d: every write waits for a majority of the members, "+
				"so more members make writes slower while %d already tolerate %d failures. Give the etcd role to 3, 5 or 7 nodes.",
			n, maxEtcdMembers, maxEtcdMembers, maxEtcdMembers/2)}
	case n > 0 && n%2 == 0:
		return hcl.Diagnostics{warnf(etcds[n-1].roleRange("etcd"), "Even number of etcd nodes",
			"The cluster has %d etcd nodes. etcd works while a majority of its members is up, so %d members tolerate %d failures, "+
				"no more than %d would: the extra member is one more machine that can fail. Use %d or %d etcd nodes.",
			n, n, n/2-1, n-1, n-1, n+1)}
	}
	return nil
}

// nodeList names up to max nodes, and how many more there are.
func nodeList(nodes []placedNode, max int) string {
	names := make([]string, 0, max)
	for i, p := range nodes {
		if i == max {
			break
		}
		names = append(names, p.String())
	}
	s := strings.Join(names, ", ")
	if more := len(nodes) - len(names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

func warnf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	d := diagf(rng, summary, format, args...)
	d.Severity = hcl.DiagWarning
	return d
}
