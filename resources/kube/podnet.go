package kube

import (
	"fmt"
	"net/netip"
	"path"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
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
`, resources.CompContainerd, script)
	return componentSpec{
		service: service{
			Component:     resources.CompPodRoutes,
			UnitName:      resources.CompPodRoutes + ".service",
			Unit:          unit,
			Files:         []serviceFile{{Path: script, Mode: "0755", Content: podRoutesScript(c, n, cidr, fam, subnets)}},
			Health:        "/bin/sh " + script + " check",
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       podRoutesCleanup(fam),
		},
		deps: []string{resources.ServiceAddr(resources.CompContainerd, n.Name)},
	}, nil
}

// podRoutesScript renders the script: "up" converges the host, "check"
// fails unless it is converged. The table of routes is data; the logic is
// the same on every worker.
func podRoutesScript(c *resources.Cluster, n resources.Node, cidr netip.Prefix, fam podFamily, subnets map[string]string) string {
	var routes strings.Builder
	for _, w := range c.NodesWithRole("worker") {
		if w.Name != n.Name {
			fmt.Fprintf(&routes, "%s %s %s\n", subnets[w.Name], w.Address, w.Name)
		}
	}
	return fmt.Sprintf(`#!/bin/sh
# Managed by eggo: edits are undone by the next apply.
# Routes to the other workers' pod subnets through their addresses, and a
# masquerade of this node's pods' traffic leaving pod_cidr.
set -eu
IP=%q
IPT=%q
PROTO=%d
FORWARD=%s
POD_CIDR=%s
SUBNET=%s
# subnet gateway node, one per other worker
ROUTES=%s

die() { echo "%s on %s: $*" >&2; exit 1; }

# gateway ADDRESS: the address itself, or what a name resolves to.
gateway() {
  case "$1" in
    *[!0-9A-Fa-f.:]*) getent %s "$1" | awk 'NR==1{print $1}' ;;
    *) echo "$1" ;;
  esac
}

# own TABLE CHAIN PARENT RULE...: CHAIN holds exactly the RULEs and PARENT
# jumps to it. An unchanged chain is left alone (no gap in the rules).
own() {
  t=$1 c=$2 p=$3; shift 3
  $IPT -t "$t" -N "$c" 2>/dev/null || true
  ok=yes
  [ "$($IPT -t "$t" -S "$c" | grep -c '^-A')" = "$#" ] || ok=
  for r in "$@"; do $IPT -t "$t" -C "$c" $r 2>/dev/null || ok=; done
  if [ -z "$ok" ]; then
    $IPT -t "$t" -F "$c"
    for r in "$@"; do $IPT -t "$t" -A "$c" $r; done
  fi
  $IPT -t "$t" -C "$p" -j "$c" 2>/dev/null || $IPT -t "$t" -A "$p" -j "$c"
}

up() {
  mkdir -p %s
  [ -e %s/forward.before ] || cat "$FORWARD" > %s/forward.before
  echo 1 > "$FORWARD"
  want=" "
  while read -r subnet gw node; do
    [ -n "$subnet" ] || continue
    via=$(gateway "$gw")
    [ -n "$via" ] || die "cannot resolve $gw, the address of worker $node"
    r=$($IP route get "$via" 2>&1) || die "worker $node ($gw) is unreachable: $r"
    case "$r" in
      *" via "*) die "worker $node ($gw) is behind a router; pod routes need all workers on one network segment" ;;
    esac
    all=$($IP route show exact "$subnet" | wc -l)
    ours=$($IP route show exact "$subnet" proto "$PROTO" | wc -l)
    [ "$all" = "$ours" ] || die "a route to $subnet (the pods of worker $node) exists that eggo did not add; remove it"
    $IP route replace "$subnet" via "$via" proto "$PROTO"
    want="$want$subnet "
  done <<EOF
$ROUTES
EOF
  $IP route show proto "$PROTO" | while read -r dst _; do
    case "$want" in
      *" $dst "*) ;;
      *) $IP route del "$dst" proto "$PROTO" ;;
    esac
  done
  own nat %s POSTROUTING "-s $SUBNET ! -d $POD_CIDR -j MASQUERADE"
  own filter %s FORWARD "-s $POD_CIDR -j ACCEPT" "-d $POD_CIDR -j ACCEPT"
}

check() {
  [ "$(cat "$FORWARD")" = 1 ] || die "forwarding is off ($FORWARD)"
  while read -r subnet gw node; do
    [ -n "$subnet" ] || continue
    via=$(gateway "$gw")
    $IP route show exact "$subnet" proto "$PROTO" | grep -qF "via $via " || die "no route to the pods of worker $node ($subnet via $gw)"
  done <<EOF
$ROUTES
EOF
  $IPT -t nat -C %s -s "$SUBNET" ! -d "$POD_CIDR" -j MASQUERADE 2>/dev/null || die "no masquerade rule for $SUBNET"
  $IPT -t nat -C POSTROUTING -j %s 2>/dev/null || die "POSTROUTING does not jump to %s"
}

case "${1:-}" in
  up) up ;;
  check) check ;;
  *) echo "usage: $0 up|check" >&2; exit 2 ;;
esac
`, fam.ip, fam.iptables, PodRouteProto, fam.forward, cidr, subnets[n.Name], shell.Quote(routes.String()),
		resources.CompPodRoutes, n.Name, fam.resolve,
		podRouteRun, podRouteRun, podRouteRun,
		podMasqChain, podFwdChain,
		podMasqChain, podMasqChain, podMasqChain)
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
