package kube

import (
	"fmt"
	"math/big"
	"net/netip"

	"github.com/eggo-project/eggo/resources"
)

// AttrPodSubnet is the attribute of a Node's k8s_node that records its
// pod subnet (the Node's spec.podCIDR, flannel's lease). The next plan
// reads it back (RecallPodSubnets), so the subnet stays put. Before
// flannel, the worker's containerd service recorded it under the same name.
const AttrPodSubnet = "pod_subnet"

// podSubnetShape is pod_cidr and the prefix length of one node's slice of
// it: a /24 of an IPv4 pod_cidr up to /23, else 8 bits more than pod_cidr
// (256 nodes).
func podSubnetShape(c *resources.Cluster) (netip.Prefix, int, error) {
	cidr, err := netip.ParsePrefix(c.Network.PodCIDR)
	if err != nil {
		return netip.Prefix{}, 0, fmt.Errorf("pod_cidr %q: %v", c.Network.PodCIDR, err)
	}
	cidr = cidr.Masked()
	bits := 24
	if !cidr.Addr().Is4() || cidr.Bits() > 23 {
		bits = cidr.Bits() + 8
	}
	// A subnet needs a network, a gateway and a pod address at least.
	if bits > cidr.Addr().BitLen()-2 {
		return netip.Prefix{}, 0, fmt.Errorf("pod_cidr %s is too small to give each node a subnet (a /%d each)", cidr, bits)
	}
	return cidr, bits, nil
}

// PodSubnets gives every Node its slice of pod_cidr (node name → CIDR).
// A Node keeps the subnet recorded for it (RecordedPodSubnets) while that
// lies inside pod_cidr, has the current size and no earlier Node holds
// it; every other Node, in declaration order, gets the lowest free one.
// So adding or removing a node never moves another node's subnet, and the
// answer depends only on the configuration and the state.
func PodSubnets(c *resources.Cluster, nodes []resources.Node) (map[string]string, error) {
	cidr, bits, err := podSubnetShape(c)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(nodes))
	taken := make(map[uint64]bool, len(nodes))
	var fresh []resources.Node
	for _, n := range nodes {
		if i, ok := subnetIndex(cidr, bits, c.RecordedPodSubnets[n.Name]); ok && !taken[i] {
			taken[i] = true
			out[n.Name] = subnetAt(cidr, bits, i)
			continue
		}
		fresh = append(fresh, n)
	}
	room := uint64(1) << (bits - cidr.Bits())
	next := uint64(0)
	for _, n := range fresh {
		for taken[next] {
			next++
		}
		if next >= room {
			return nil, fmt.Errorf("pod_cidr %s has room for %d node subnets (/%d each), too few for %d nodes: no subnet for %s", cidr, room, bits, len(nodes), n.Name)
		}
		taken[next] = true
		out[n.Name] = subnetAt(cidr, bits, next)
	}
	return out, nil
}

// subnetIndex is the position of a recorded subnet among pod_cidr's
// subnets of the given size; ok is false when it is not one of them.
func subnetIndex(cidr netip.Prefix, bits int, recorded string) (uint64, bool) {
	p, err := netip.ParsePrefix(recorded)
	if err != nil || p.Bits() != bits || p.Masked() != p || !cidr.Contains(p.Addr()) {
		return 0, false
	}
	v := new(big.Int).SetBytes(p.Addr().AsSlice())
	v.Sub(v, new(big.Int).SetBytes(cidr.Addr().AsSlice()))
	v.Rsh(v, uint(p.Addr().BitLen()-bits))
	return v.Uint64(), true
}

// subnetAt is pod_cidr's i-th subnet of the given size.
func subnetAt(cidr netip.Prefix, bits int, i uint64) string {
	v := new(big.Int).SetBytes(cidr.Addr().AsSlice())
	v.Add(v, new(big.Int).Lsh(new(big.Int).SetUint64(i), uint(cidr.Addr().BitLen()-bits)))
	out, _ := netip.AddrFromSlice(v.FillBytes(make([]byte, cidr.Addr().BitLen()/8)))
	return netip.PrefixFrom(out, bits).String()
}

// Recall keeps every Node's pod subnet (see RecallPodSubnets).
func (K8sNode) Recall(c *resources.Cluster, recorded func(kind string) []resources.Object) {
	RecallPodSubnets(c, recorded)
}

// RecallPodSubnets fills c.RecordedPodSubnets from the state: the pod subnet
// each Node's k8s_node recorded, or, in a state written before flannel,
// its containerd service. The engine calls it with the prior state's
// objects before expanding, so a plan (refreshed or not) keeps every
// Node's subnet.
func RecallPodSubnets(c *resources.Cluster, recorded func(kind string) []resources.Object) {
	keep := func(o resources.Object) {
		if subnet := resources.AttrString(o.Attrs[AttrPodSubnet]); o.Node != "" && subnet != "" {
			if c.RecordedPodSubnets == nil {
				c.RecordedPodSubnets = map[string]string{}
			}
			c.RecordedPodSubnets[o.Node] = subnet
		}
	}
	for _, o := range recorded("service") {
		if resources.AttrString(o.Attrs[svcComponent]) == resources.CompContainerd {
			keep(o)
		}
	}
	for _, o := range recorded("k8s_node") { // newer than the services' records
		keep(o)
	}
}
