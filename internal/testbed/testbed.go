package testbed

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"regexp"
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
	// RunRoot holds the testbed's run dir; default DefaultRunRoot().
	RunRoot string
	// Rootfs is the lower layer; default RootfsDir(), built when missing.
	Rootfs string
	// Containers boots nodes able to run containerd+runc (kubelet): writable
	// API filesystems, all capabilities, host cgroups, keyring syscalls,
	// /dev/kmsg and a plain-directory /var/lib/containerd.
	Containers bool
	// Log receives progress lines; nil discards them.
	Log func(format string, args ...any)
}

var (
	idPattern = regexp.MustCompile(`^[a-z0-9]{1,8}$`)
	// At most 50 characters so the machine name eggo-ID-NAME stays a
	// valid hostname (64).
	namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,48}[a-z0-9])?$`)
)

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

func (tb *Testbed) keyFile() string        { return filepath.Join(tb.Dir, "id_ed25519") }
func (tb *Testbed) knownHostsFile() string { return filepath.Join(tb.Dir, "known_hosts") }
