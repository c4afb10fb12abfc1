package kube

import (
	"fmt"
	"net/netip"
	"path"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/templates"
)

// PodRouteProto marks the routes eggo adds (ip route … proto 77): eggo
// removes only routes with this mark, never one an operator added.
const PodRouteProto = 77

// The iptables chains eggo owns: a masquerade of pod traffic leaving
// pod_cidr (nat POSTROUTING) and an accept of pod traffic forwarded between
// nodes (filter FORWARD, for hosts whose FORWARD policy is DROP).
const (
	podMasqChain = "EGGO-POD-MASQ"
	podFwdChain  = "EGGO-POD-FWD"
)

// podRouteRun is where the routes script keeps what it found before it
// changed the host (the forwarding sysctl), for the cleanup to restore.
// It lives in /run: after a reboot the value to restore is the boot's own.
const podRouteRun = "/run/" + resources.CompPodRoutes

// podFamily is what differs between IPv4 and IPv6 pod networks.
type podFamily struct {
	ip       string // ip -4 | ip -6
	iptables string // iptables | ip6tables
	forward  string // the forwarding sysctl's file
	resolve  string // getent database for a node address given as a name
}

func familyOf(cidr netip.Prefix) podFamily {
	if cidr.Addr().Is4() {
		return podFamily{ip: "ip -4", iptables: "iptables", forward: "/proc/sys/net/ipv4/ip_forward", resolve: "ahostsv4"}
	}
	return podFamily{ip: "ip -6", iptables: "ip6tables", forward: "/proc/sys/net/ipv6/conf/all/forwarding", resolve: "ahostsv6"}
}

// podRoutes is the routes oneshot of worker n. subnets holds every worker's
// pod subnet: a worker joining or leaving changes every other worker's
// script, and the service kind restarts the oneshot to converge. It takes
// nothing down (routes are replaced in place, never flushed first), so it
// needs no rolling.
func podRoutes(c *resources.Cluster, n resources.Node, subnets map[string]string) (componentSpec, error) {
	cidr, _, err := podSubnetShape(c)
	if err != nil {
		return componentSpec{}, err
	}
	fam := familyOf(cidr)
	script := path.Join(c.ConfigDir, resources.CompPodRoutes, "routes.sh")
	content, err := podRoutesScript(c, n, cidr, fam, subnets)
	if err != nil {
		return componentSpec{}, fmt.Errorf("%s: %w", resources.CompPodRoutes, err)
	}
	unit := fmt.Sprintf(`[Unit]
Description=routes to the other workers' pods (eggo)
Wants=network-online.target
After=network-online.target %s.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh %s up

[Install]
WantedBy=multi-user.target
`, resources.CompContainerd, unitArg(script))
	return componentSpec{
		service: service{
			Component:     resources.CompPodRoutes,
			UnitName:      resources.CompPodRoutes + ".service",
			Unit:          unit,
			Files:         []serviceFile{{Path: script, Mode: "0755", Content: content}},
			Health:        "/bin/sh " + shell.Quote(script) + " check",
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       podRoutesCleanup(fam),
		},
		deps: []string{resources.ServiceAddr(resources.CompContainerd, n.Name)},
	}, nil
}

// podRoutesScript renders the script (templates/pod-routes.sh.tmpl): "up"
// converges the host, "check" fails unless it is converged. The table of
// routes is data; the logic is the same on every worker.
func podRoutesScript(c *resources.Cluster, n resources.Node, cidr netip.Prefix, fam podFamily, subnets map[string]string) (string, error) {
	var routes []templates.PodRoute
	for _, w := range c.NodesWithRole("worker") {
		if w.Name != n.Name {
			routes = append(routes, templates.PodRoute{Subnet: subnets[w.Name], Gateway: w.Address, Node: w.Name})
		}
	}
	return templates.PodRoutes(templates.PodRoutesData{
		IP: fam.ip, IPTables: fam.iptables, Proto: PodRouteProto, Forward: fam.forward,
		PodCIDR: cidr.String(), Subnet: subnets[n.Name], Routes: routes,
		Component: resources.CompPodRoutes, Node: n.Name, Resolve: fam.resolve,
		RunDir: podRouteRun, MasqChain: podMasqChain, FwdChain: podFwdChain,
	})
}

// podRoutesCleanup removes what the script added, without the script (it
// may never have been written): eggo's routes, eggo's chains and the
// forwarding setting it found.
func podRoutesCleanup(fam podFamily) string {
	return fmt.Sprintf(`%[1]s route flush proto %[2]d 2>/dev/null
%[3]s -t nat -D POSTROUTING -j %[4]s 2>/dev/null
%[3]s -t nat -F %[4]s 2>/dev/null && %[3]s -t nat -X %[4]s
%[3]s -D FORWARD -j %[5]s 2>/dev/null
%[3]s -F %[5]s 2>/dev/null && %[3]s -X %[5]s
if [ -f %[6]s/forward.before ]; then cat %[6]s/forward.before > %[7]s; fi
rm -rf %[6]s
true`, fam.ip, PodRouteProto, fam.iptables, podMasqChain, podFwdChain, podRouteRun, fam.forward)
}

// defaultRoute is the default destination of a pod subnet's family: pods
// send everything to their bridge.
func defaultRoute(subnet string) string {
	if p, err := netip.ParsePrefix(subnet); err == nil && p.Addr().Is6() {
		return "::/0"
	}
	return "0.0.0.0/0"
}
