package resources

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync"

	"github.com/eggo-project/eggo/resources/pki"
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
// While c is indexed (see Index) the slice is shared: read it, never
// change it.
func (c *Cluster) NodesWithRole(role string) []Node {
	if c.topo != nil {
		return c.topo.byRole[role]
	}
	return c.nodesWithRole(role)
}

func (c *Cluster) nodesWithRole(role string) []Node {
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
	if c.topo != nil {
		return c.topo.endpoint
	}
	return c.endpoint()
}

func (c *Cluster) endpoint() string {
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

// topology is what every node's expansion asks of the whole cluster,
// computed once: asked of the node list each time, it made expanding N
// nodes cost N² (each worker's kubeconfig names the endpoint, each
// worker's services wait for the masters).
type topology struct {
	byRole    map[string][]Node
	kubeNodes []Node
	endpoint  string

	mu      sync.Mutex
	bundled map[string]string // bundle file → BundleLacks's why
	shared  map[any]any       // Shared's values by key
}

// lacks is BundleLacks's why for the bundle file at path, asked of the
// file system once while the index lasts.
func (t *topology) lacks(path string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	why, ok := t.bundled[path]
	if !ok {
		why = lacks(path)
		if t.bundled == nil {
			t.bundled = map[string]string{}
		}
		t.bundled[path] = why
	}
	return why
}

// Index makes NodesWithRole and Endpoint answer from an index of c's nodes
// until done is called, and BundleLacks from one look at each bundle file;
// c's nodes and its bundle must not change meanwhile. The engine
// holds one while the kinds expand. Indexing an indexed cluster does
// nothing (its done too).
func (c *Cluster) Index() (done func()) {
	if c == nil || c.topo != nil {
		return func() {}
	}
	t := &topology{byRole: map[string][]Node{}}
	for _, n := range c.Nodes {
		for i, r := range n.Roles {
			if !slices.Contains(n.Roles[:i], r) { // a role written twice is one
				t.byRole[r] = append(t.byRole[r], n)
			}
		}
	}
	for r, l := range t.byRole {
		t.byRole[r] = slices.Clip(l) // an append by a caller copies
	}
	t.kubeNodes = slices.Clip(c.kubeNodes())
	t.endpoint = c.endpoint()
	c.topo = t
	return func() { c.topo = nil }
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

// ClusterDNSIP is the cluster DNS Service's address: the tenth of the
// service range (10.96.0.0/12 → 10.96.0.10), where kubelet's clusterDNS
// points pods. It must stay the computation kubelet's configuration makes.
func ClusterDNSIP(serviceCIDR string) (string, error) {
	ip, err := pki.ServiceIP(serviceCIDR)
	if err != nil {
		return "", err
	}
	for range 9 {
		ip = ip.Next()
	}
	if p, err := netip.ParsePrefix(serviceCIDR); err != nil || !p.Masked().Contains(ip) {
		return "", fmt.Errorf("service_cidr %q has no room for the cluster DNS address (its tenth address)", serviceCIDR)
	}
	return ip.String(), nil
}

// NodeArch is a node's architecture: its arch, else amd64.
func NodeArch(n Node) string { return AttrOr(n.Arch, "amd64") }

// DefaultDNSDomain is the cluster's DNS domain when none is configured.
const DefaultDNSDomain = pki.DefaultDNSDomain

// DNSDomain is the cluster's DNS domain: network's dns_domain, else
// DefaultDNSDomain. Every component and add-on asks here, so they agree.
func (c *Cluster) DNSDomain() string { return AttrOr(c.Network.DNSDomain, DefaultDNSDomain) }
