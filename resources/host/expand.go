package host

import (
	"sort"

	"github.com/eggo-project/eggo/resources"
)

// Expand returns one host per node, each with the bundle files its roles
// need (roles.go). Nodes of the same arch share one walk and one
// hashing of their bundle, and nodes of the same arch and roles one files
// list: 1000 nodes cost one bundle read. The shared lists must be treated
// as read-only, like all Attrs.
func (h *Host) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	bundles := map[string]*archBundle{}
	out := make([]resources.Desired, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		if n.Name == "" || n.Address == "" {
			return nil, resources.Blame(n.At("address"), "Node without an address",
				"host.%s: a node needs a name and an address", n.Name)
		}
		arch := resources.NodeArch(n)
		bundle, ok := bundles[arch]
		if !ok {
			var err error
			bundle, err = h.bundleFiles(c.Packages, arch, resources.UnusedBundleDirs(c))
			if err != nil {
				// packages/<arch> is read for the node's arch.
				return nil, resources.Blame(n.At("arch"), "Unusable package bundle",
					"host.%s: node %s has arch %s: %v", n.Name, n.Name, arch, err)
			}
			bundles[arch] = bundle
		}
		files := bundle.filesFor(rolesOf(resources.BundleRoles(c, n)))
		out = append(out, resources.Desired{
			Addr:      resources.HostAddr(n.Name),
			Kind:      "host",
			Node:      n.Name,
			Source:    n.Source,
			Range:     n.Ranges.Block,
			Attrs:     hostAttrs(n, arch, files, resources.ConnectionAttrsIn(c, n)),
			DependsOn: hostDeps(n),
		})
	}
	return out, nil
}

// hostAttrs are the configured attributes of a node's host. Empty roles and
// labels are [] and {}, never null, so "none" compares equal to "none".
func hostAttrs(n resources.Node, arch string, files []any, connection map[string]any) resources.Attrs {
	roles := make([]any, len(n.Roles))
	for i, r := range n.Roles {
		roles[i] = r
	}
	labels := make(map[string]any, len(n.Labels))
	for k, v := range n.Labels {
		labels[k] = v
	}
	return resources.Attrs{
		hostName:       n.Name,
		hostAddress:    n.Address,
		hostArch:       arch,
		hostRoles:      roles,
		hostLabels:     labels,
		hostConnection: connection,
		hostFiles:      files,
	}
}

func hostDeps(n resources.Node) []string {
	if len(n.DependsOn) == 0 {
		return nil
	}
	deps := make([]string, len(n.DependsOn))
	for i, d := range n.DependsOn {
		deps[i] = resources.HostAddr(d)
	}
	sort.Strings(deps)
	return deps
}
