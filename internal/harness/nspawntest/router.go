package nspawntest

import (
	"context"
	"fmt"
	"net/netip"
)

// createRouter makes the namespace that joins a testbed's networks: one leg
// (a veth, ethI inside) on each network's bridge holding that subnet's
// .routerOctet, and IPv4 forwarding switched on inside the namespace only.
// Forwarding is per network namespace, so this machine's own
// net.ipv4.ip_forward is never touched, and nothing here adds NAT: packets
// go from one testbed subnet to another and nowhere else.
func createRouter(ctx context.Context, id, netns string, nets []networkRecord) error {
	steps := [][]string{{"netns", "add", netns}, {"-n", netns, "link", "set", "lo", "up"}}
	for i, n := range nets {
		subnet, err := netip.ParsePrefix(n.Subnet)
		if err != nil {
			return fmt.Errorf("router: network %d: %w", i, err)
		}
		leg, inside := routerVeth(id, i), fmt.Sprintf("eth%d", i)
		steps = append(steps,
			[]string{"link", "add", leg, "type", "veth", "peer", "name", inside, "netns", netns},
			[]string{"link", "set", leg, "master", n.Bridge},
			[]string{"link", "set", leg, "up"},
			[]string{"-n", netns, "addr", "add", hostAddr(subnet, routerOctet).String() + "/24", "dev", inside},
			[]string{"-n", netns, "link", "set", inside, "up"},
		)
	}
	for _, s := range steps {
		if err := run(ctx, "ip", s...); err != nil {
			return fmt.Errorf("router: %w", err)
		}
	}
	// /proc/sys/net belongs to the namespace of the process that opens it.
	if err := run(ctx, "ip", "netns", "exec", netns, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"); err != nil {
		return fmt.Errorf("router: %w", err)
	}
	return nil
}

// otherSubnets are the subnets of every network but the i-th.
func otherSubnets(nets []networkRecord, i int) []netip.Prefix {
	var out []netip.Prefix
	for j, n := range nets {
		if j != i {
			out = append(out, netip.MustParsePrefix(n.Subnet))
		}
	}
	return out
}
