package nspawntest

import (
	"fmt"
	"maps"
	"net/netip"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
)

// Host is one booted node, as eggo and tests reach it.
type Host struct {
	Name           string `json:"name"`
	Address        string `json:"address"`
	User           string `json:"user"`
	Port           int    `json:"port"`
	KeyFile        string `json:"key_file"`
	KnownHostsFile string `json:"known_hosts_file"`
	// Network is the index of the node's network (0 unless Options.Networks
	// > 1) and Subnet that network's /24.
	Network int    `json:"network"`
	Subnet  string `json:"subnet"`
}

// Testbed is a set of hosts booted together. Its methods are safe for
// concurrent use.
type Testbed struct {
	ID    string
	Dir   string // run dir: record, keys, overlays, logs
	Hosts []Host

	mu  sync.Mutex // guards rec and its file
	rec *record
}

// Options choose what Up boots.
type Options struct {
	N     int      // number of nodes, named m0, m1, …; ignored when Names is set
	Names []string // node names (hostname labels)
	// ID names the testbed and everything it creates; at most 8 of
	// [a-z0-9]. Empty picks a random one.
	ID string
	// Subnet is an IPv4 /24 such as "10.77.0.0/24"; the bridge takes .1 and
	// node i takes .(11+i). Empty picks the first free 10.77.X.0/24.
	Subnet string
	// Networks is how many networks the nodes are spread over; 0 means 1.
	// Each further network is another bridge on the next free
	// 10.77.X.0/24 (this machine takes .1 of each, node i still .(11+i)),
	// and a router namespace with a leg at .254 on every bridge forwards
	// between them; each node routes the other subnets via its own
	// subnet's .254. This machine never forwards.
	Networks int
	// NetworkOf places nodes by name on a network (0 to Networks-1); nodes
	// it does not name are on network 0. When nil, node i is on network
	// i % Networks.
	NetworkOf map[string]int
	// RunRoot holds the testbed's run dir; default DefaultRunRoot().
	RunRoot string
	// Rootfs is the lower layer; default RootfsDir(), built when missing.
	Rootfs string
	// Containers boots nodes able to run containerd+runc (kubelet): writable
	// API filesystems, all capabilities, host cgroups, keyring syscalls,
	// /dev/kmsg and a plain-directory /var/lib/containerd.
	Containers bool
	// ReadOnlyBinds maps a path in every node to a directory of this
	// machine the node sees read-only there (a bundle a pod mounts as a
	// hostPath, without copying hundreds of megabytes into each node).
	ReadOnlyBinds map[string]string
	// Log receives progress lines; nil discards them.
	Log func(format string, args ...any)
}

var (
	idPattern = regexp.MustCompile(`^[a-z0-9]{1,8}$`)
	// At most 50 characters so the machine name eggo-ID-NAME stays a
	// valid hostname (64).
	namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,48}[a-z0-9])?$`)
)

// maxNetworks bounds Options.Networks: one digit in link names.
const maxNetworks = 4

// routerOctet is the router's address on every subnet; nodes end at .253.
const routerOctet = 254

// firstNodeOctet is where node addresses start (m0 = .11), leaving .2–.10
// for a load balancer VIP or other fixed addresses in tests.
const firstNodeOctet = 11

func (o Options) names() ([]string, error) {
	names := o.Names
	if len(names) == 0 {
		if o.N < 1 {
			return nil, fmt.Errorf("testbed: need N >= 1 or Names")
		}
		for i := 0; i < o.N; i++ {
			names = append(names, fmt.Sprintf("m%d", i))
		}
	}
	if len(names) > 254-firstNodeOctet {
		return nil, fmt.Errorf("testbed: %d nodes do not fit a /24", len(names))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if !namePattern.MatchString(n) {
			return nil, fmt.Errorf("testbed: node name %q is not a hostname label of at most 50 of [a-z0-9-]", n)
		}
		if seen[n] {
			return nil, fmt.Errorf("testbed: node name %q given twice", n)
		}
		seen[n] = true
	}
	return names, nil
}

// networkCount is Options.Networks, 0 read as 1.
func (o Options) networkCount() (int, error) {
	if o.Networks == 0 {
		return 1, nil
	}
	if o.Networks < 1 || o.Networks > maxNetworks {
		return 0, fmt.Errorf("testbed: Networks %d: want 1 to %d", o.Networks, maxNetworks)
	}
	return o.Networks, nil
}

// placement is the network of each node, in the order of names.
func (o Options) placement(names []string) ([]int, error) {
	count, err := o.networkCount()
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(o.NetworkOf)) {
		if i := o.NetworkOf[name]; !slices.Contains(names, name) {
			return nil, fmt.Errorf("testbed: NetworkOf places %q, which is not a node", name)
		} else if i < 0 || i >= count {
			return nil, fmt.Errorf("testbed: NetworkOf places %s on network %d; there are %d (0 to %d)", name, i, count, count-1)
		}
	}
	out := make([]int, len(names))
	for i, name := range names {
		if o.NetworkOf == nil {
			out[i] = i % count
		} else {
			out[i] = o.NetworkOf[name]
		}
	}
	return out, nil
}

func parseSubnet(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() || p.Bits() != 24 || p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("testbed: subnet %q must be an IPv4 /24 like 10.77.0.0/24", s)
	}
	return p, nil
}

// hostAddr is the address with the given last octet inside subnet.
func hostAddr(subnet netip.Prefix, octet int) netip.Addr {
	b := subnet.Addr().As4()
	b[3] = byte(octet)
	return netip.AddrFrom4(b)
}

func bridgeName(id string) string      { return "ebr-" + id }
func vethName(id string, i int) string { return fmt.Sprintf("ev-%s-%d", id, i) }
func netnsName(id, node string) string { return "eggo-" + id + "-" + node }
func netnsPrefix(id string) string     { return "eggo-" + id + "-" }

// netBridgeName is network i's bridge: the first keeps ebr-ID.
func netBridgeName(id string, i int) string {
	if i == 0 {
		return bridgeName(id)
	}
	return fmt.Sprintf("%s-%d", bridgeName(id), i)
}

// routerNetns is the router's namespace. It has the nodes' prefix, so
// everything that finds a testbed's namespaces by name finds it, and a
// node name never starts with '-', so no node's namespace is called so.
func routerNetns(id string) string { return netnsPrefix(id) + "-router" }

// routerVeth is the host end of the router's leg on network i; the
// router's end is ethI.
func routerVeth(id string, i int) string { return fmt.Sprintf("ev-%s-r%d", id, i) }

func (tb *Testbed) keyFile() string        { return filepath.Join(tb.Dir, "id_ed25519") }
func (tb *Testbed) knownHostsFile() string { return filepath.Join(tb.Dir, "known_hosts") }
