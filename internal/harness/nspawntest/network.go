package nspawntest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// createBridge makes the testbed's bridge with the subnet's .1 address. It
// never enables forwarding or NAT: the nodes reach each other and this
// machine, nothing else.
func createBridge(ctx context.Context, name string, subnet netip.Prefix) error {
	gw := hostAddr(subnet, 1)
	if err := run(ctx, "ip", "link", "add", name, "type", "bridge"); err != nil {
		return err
	}
	if err := run(ctx, "ip", "addr", "add", fmt.Sprintf("%s/24", gw), "dev", name); err != nil {
		return err
	}
	return run(ctx, "ip", "link", "set", name, "up")
}

// createNodeNetwork makes the node's namespace and veth pair: eth0 inside
// with the node's address and a default route via the bridge, the host end
// enslaved to the bridge. With several networks, the other subnets are
// routed via the router's leg on the node's own subnet (routerOctet).
func createNodeNetwork(ctx context.Context, n nodeRecord, bridge string, subnet netip.Prefix, others []netip.Prefix) error {
	gw := hostAddr(subnet, 1)
	steps := [][]string{
		{"netns", "add", n.Netns},
		{"link", "add", n.Veth, "type", "veth", "peer", "name", "eth0", "netns", n.Netns},
		{"link", "set", n.Veth, "master", bridge},
		{"link", "set", n.Veth, "up"},
		{"-n", n.Netns, "link", "set", "lo", "up"},
		{"-n", n.Netns, "addr", "add", n.Address + "/24", "dev", "eth0"},
		{"-n", n.Netns, "link", "set", "eth0", "up"},
		{"-n", n.Netns, "route", "add", "default", "via", gw.String()},
	}
	for _, o := range others {
		steps = append(steps, []string{"-n", n.Netns, "route", "add", o.String(), "via", hostAddr(subnet, routerOctet).String()})
	}
	for _, s := range steps {
		if err := run(ctx, "ip", s...); err != nil {
			return fmt.Errorf("node %s network: %w", n.Name, err)
		}
	}
	return nil
}

func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}

func deleteLink(ctx context.Context, name string) error {
	if !linkExists(name) {
		return nil
	}
	return run(ctx, "ip", "link", "del", name)
}

func deleteNetns(ctx context.Context, name string) error {
	if _, err := os.Stat(filepath.Join("/run/netns", name)); os.IsNotExist(err) {
		return nil
	}
	return run(ctx, "ip", "netns", "del", name)
}

// linksWithPrefix lists this machine's links whose names start with prefix.
func linksWithPrefix(prefix string) []string {
	ifs, _ := net.Interfaces()
	var out []string
	for _, i := range ifs {
		if strings.HasPrefix(i.Name, prefix) {
			out = append(out, i.Name)
		}
	}
	return out
}

func netnsWithPrefix(prefix string) []string {
	entries, _ := os.ReadDir("/run/netns")
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// subnetInUse reports whether any address on this machine lies in subnet:
// another testbed's bridge, or a real network we must not shadow.
func subnetInUse(subnet netip.Prefix) bool {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		p, err := netip.ParsePrefix(ipn.String())
		if err == nil && p.Overlaps(subnet) {
			return true
		}
	}
	return false
}

// freeSubnet picks the first 10.77.X.0/24 no address on this machine uses,
// other than those already taken for this testbed.
func freeSubnet(taken []netip.Prefix) (netip.Prefix, error) {
	for x := 0; x < 256; x++ {
		p := netip.MustParsePrefix(fmt.Sprintf("10.77.%d.0/24", x))
		if !subnetInUse(p) && !slices.Contains(taken, p) {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("testbed: every 10.77.X.0/24 is in use")
}
