package config

import (
	"net/netip"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

// checkServiceFamily refuses a service range of another IP family than the
// masters' addresses: kube-apiserver publishes itself as the "kubernetes"
// Service's endpoints at those addresses, in the service range's family,
// so an IPv6 range with IPv4 masters (or the reverse) would fail on every
// master at start. Dual-stack services are not built yet. Masters named
// by a DNS name are not checked.
func (l *loader) checkServiceFamily(c *resources.Cluster, byRole map[string][]placedNode) hcl.Diagnostics {
	service, err := netip.ParsePrefix(c.Network.ServiceCIDR)
	if err != nil || l.clusters[0].unknownAttr(true, "service_cidr") {
		return nil // reported where the range is decoded, or not known (validate mode)
	}
	for _, m := range byRole["master"] {
		addr, err := netip.ParseAddr(m.in.model.Address)
		if err != nil || addr.Unmap().Is4() == service.Addr().Is4() {
			continue
		}
		rng := l.clusters[0].block.DefRange
		if cb := l.clusters[0]; cb.network != nil {
			rng = cb.network.DefRange
			if a, ok := networkAttrs(cb)["service_cidr"]; ok {
				rng = a.Expr.Range()
			}
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Service range and masters of different IP families",
			Detail: "service_cidr " + service.String() + " and the address " + addr.String() + " of master " + m.String() +
				" are of different IP families. kube-apiserver serves the kubernetes Service at the masters' addresses, " +
				"so the service range must be of their family (dual-stack services are not supported yet).",
			Subject: rng.Ptr(),
		}}
	}
	return nil
}

// networkAttrs are the attributes of the cluster's network block.
func networkAttrs(cb *clusterBlock) hcl.Attributes {
	content, _ := cb.network.Body.Content(networkSchema)
	return content.Attributes
}
