package resources

import (
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"strconv"
)

// The ports eggo's components listen on.
const (
	APIServerPort  = 6443
	EtcdClientPort = 2379
	EtcdPeerPort   = 2380
)

// HasRole reports whether the node has the role.
func (n Node) HasRole(role string) bool {
	for _, r := range n.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// NodesWithRole returns the nodes with a role, in declaration order.
func (c *Cluster) NodesWithRole(role string) []Node {
	var out []Node
	for _, n := range c.Nodes {
		if n.HasRole(role) {
			out = append(out, n)
		}
	}
	return out
}

// NodeNamed returns the node of that name.
func (c *Cluster) NodeNamed(name string) (Node, bool) {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// Endpoint is the host:port every client of the cluster reaches the
// apiservers at: api_endpoint when set, else the load balancer, else the
// first master. "" when the cluster has none of them.
func (c *Cluster) Endpoint() string {
	ep := c.APIEndpoint
	if ep == "" {
		if lbs := c.NodesWithRole("loadbalance"); len(lbs) > 0 {
			ep = lbs[0].Address
		} else if ms := c.NodesWithRole("master"); len(ms) > 0 {
			ep = ms[0].Address
		}
	}
	if ep == "" {
		return ""
	}
	if _, _, err := net.SplitHostPort(ep); err != nil {
		ep = net.JoinHostPort(ep, strconv.Itoa(APIServerPort))
	}
	return ep
}

// APIServerURL is https:// + Endpoint.
func (c *Cluster) APIServerURL() string { return "https://" + c.Endpoint() }

// EtcdClientURLs are the client URLs of every etcd node.
func (c *Cluster) EtcdClientURLs() []string {
	var out []string
	for _, n := range c.NodesWithRole("etcd") {
		out = append(out, EtcdClientURL(n))
	}
	return out
}

// EtcdClientURL is a member's client URL.
func EtcdClientURL(n Node) string {
	return "https://" + net.JoinHostPort(n.Address, strconv.Itoa(EtcdClientPort))
}

// EtcdPeerURL is a member's peer URL.
func EtcdPeerURL(n Node) string {
	return "https://" + net.JoinHostPort(n.Address, strconv.Itoa(EtcdPeerPort))
}

// PodSubnet is the slice of pod_cidr a node's pods get addresses from: the
// node's position among all nodes selects one /24 (for an IPv4 pod_cidr up
// to /23) or one /(prefix+8) otherwise.
func (c *Cluster) PodSubnet(node string) (string, error) {
	prefix, err := netip.ParsePrefix(c.Network.PodCIDR)
	if err != nil {
		return "", fmt.Errorf("pod_cidr %q: %v", c.Network.PodCIDR, err)
	}
	prefix = prefix.Masked()
	bits := 24
	if !prefix.Addr().Is4() || prefix.Bits() > 23 {
		bits = prefix.Bits() + 8
	}
	index := -1
	for i, n := range c.Nodes {
		if n.Name == node {
			index = i
		}
	}
	if index < 0 {
		return "", fmt.Errorf("no node %q", node)
	}
	if bits > prefix.Addr().BitLen() || index >= 1<<(bits-prefix.Bits()) {
		return "", fmt.Errorf("pod_cidr %s has no room for a subnet for node %s (number %d)", prefix, node, index+1)
	}
	v := new(big.Int).SetBytes(prefix.Addr().AsSlice())
	v.Add(v, new(big.Int).Lsh(big.NewInt(int64(index)), uint(prefix.Addr().BitLen()-bits)))
	b := v.FillBytes(make([]byte, prefix.Addr().BitLen()/8))
	out, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(out, bits).String(), nil
}
