package kube

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"path"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// The pod network is flannel (VXLAN backend, Kubernetes subnet manager):
// flanneld on every Node reads its own Node's spec.podCIDR, which eggo
// sets from the state (k8s_node's pod_subnet), publishes its VXLAN
// endpoint as annotations on that Node, and learns every other node's
// subnet and endpoint by watching Nodes. A Node's configuration names
// only the Node itself: a join or a removal changes no other Node.
//
// Why flannel and not kube-router (which also enforces NetworkPolicy):
// kube-router's module cannot be fetched from the module proxy the bundle
// is built with, flannel's can (tools/bundle/README.md). flannel does
// not enforce NetworkPolicy.

const (
	flannelProgram = "usr/local/bin/flanneld"
	// FlannelSubnetFile is where flanneld writes the node's lease; the CNI
	// flannel plugin reads it for every pod.
	FlannelSubnetFile = "/run/flannel/subnet.env"
	// FlannelLink is the VXLAN device flanneld makes (VNI 1).
	FlannelLink = "flannel.1"
	// flannelRun keeps what flanneld's start found before it turned IP
	// forwarding on, for the cleanup to restore (a reboot's own value
	// lives in /run too).
	flannelRun = "/run/eggo-flannel"
	// legacyRouteRun is where the host-gw routes service (eggo-pod-routes,
	// before flannel) kept the forwarding value it found. flanneld's start
	// takes it over, so the old service's cleanup, which may run after
	// flanneld started, cannot turn forwarding off under flannel.
	legacyRouteRun = "/run/" + resources.CompPodRoutes
)

// FlannelAddon is the built-in add-on (addon.flannel, resources/addon)
// holding flannel's RBAC: what its user (pki.FlannelUser) may do.
const FlannelAddon = "flannel"

// podFamily is what differs between IPv4 and IPv6 pod networks.
type podFamily struct {
	iptables string // iptables | ip6tables
	forward  string // the forwarding sysctl's file
}

// The two families.
var (
	ipv4Family = podFamily{iptables: "iptables", forward: "/proc/sys/net/ipv4/ip_forward"}
	ipv6Family = podFamily{iptables: "ip6tables", forward: "/proc/sys/net/ipv6/conf/all/forwarding"}
)

func familyOf(cidr netip.Prefix) podFamily {
	if cidr.Addr().Is4() {
		return ipv4Family
	}
	return ipv6Family
}

// FlannelCNIConfigPath is the CNI network on every Node: the flannel plugin
// reads the node's subnet and MTU from FlannelSubnetFile and delegates to
// the bridge plugin (cni0) with host-local addresses.
const FlannelCNIConfigPath = "/etc/cni/net.d/10-flannel.conflist"

// flannelCNIConfig is the same on every Node. cniVersion 0.3.1: the
// flannel plugin (containernetworking/plugins v0.9.1) speaks up to 0.4.0.
const flannelCNIConfig = `{
  "cniVersion": "0.3.1",
  "name": "eggo",
  "plugins": [
    {"type": "flannel", "delegate": {"hairpinMode": true, "isDefaultGateway": true}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`

// flannelNetConf is flanneld's network configuration: the whole pod_cidr
// with the VXLAN backend. The subnet each node gets is its Node's podCIDR,
// not flannel's choice (the Kubernetes subnet manager ignores SubnetLen).
func flannelNetConf(cidr netip.Prefix) (string, error) {
	conf := map[string]any{"Backend": map[string]any{"Type": "vxlan"}}
	if cidr.Addr().Is4() {
		conf["Network"] = cidr.String()
	} else {
		conf["EnableIPv4"], conf["EnableIPv6"], conf["IPv6Network"] = false, true, cidr.String()
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	return string(b) + "\n", err
}

// flanneld is the pod network's service on Node n. It waits for the
// Node's podCIDR (k8s_node) and for flannel's RBAC (addon.flannel) when eggo
// manages them, i.e. when the cluster has masters.
func flanneld(c *resources.Cluster, n resources.Node) (componentSpec, error) {
	dir := path.Join(c.ConfigDir, resources.CompFlannel)
	f := func(name string) string { return path.Join(dir, name) }
	shared := resources.Shared(c, sharedKey("flanneld"), func() flannelShared { return newFlannelShared(c, f) })
	if shared.err != nil {
		return componentSpec{}, shared.err
	}
	own := map[string]string{
		"kube-subnet-mgr": "true",
		"kubeconfig-file": f("kubeconfig"),
		"net-config-path": f("net-conf.json"),
		"subnet-file":     FlannelSubnetFile,
		"ip-masq":         "true", // only what leaves pod_cidr
	}
	if _, err := netip.ParseAddr(n.Address); err == nil {
		own["iface"] = n.Address // else flanneld takes the default route's interface
	}
	deps := []string{resources.ServiceAddr(resources.CompKubelet, n.Name)}
	if len(c.NodesWithRole("master")) > 0 {
		deps = append(deps, K8sNodeAddr(n.Name), resources.AddonAddr(FlannelAddon))
	}
	return componentSpec{
		service: service{
			Component: resources.CompFlannel,
			UnitName:  resources.CompFlannel + ".service",
			// notify: flanneld says READY once it wrote the node's lease.
			// It exits when its Node has no podCIDR yet; systemd restarts it.
			Unit: renderUnit(unitOptions{description: "flannel pod network (eggo)", exec: "/usr/local/bin/flanneld",
				args: flags(c, resources.CompFlannel, own), typ: "notify",
				extra: []string{
					"Environment=NODE_NAME=" + unitArg(n.Name),
					"ExecStartPre=/bin/sh " + unitArg(f("forwarding.sh")),
				}}),
			Files:         shared.files,
			Health:        shared.health,
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       shared.cleanup,
		},
		deps: deps,
		// In the last stage on every Node: it waits for flannel's RBAC,
		// which waits for every apiserver.
		roll:    nodesRoll(c, n),
		program: flannelProgram,
	}, nil
}

// flannelShared is what every Node's flanneld has alike, built once per
// plan: its files (the same on every Node), health and cleanup.
type flannelShared struct {
	files   []serviceFile
	health  string
	cleanup string
	err     error // pod_cidr gives no network
}

func newFlannelShared(c *resources.Cluster, f func(name string) string) flannelShared {
	cidr, _, err := podSubnetShape(c)
	if err != nil {
		return flannelShared{err: err}
	}
	netConf, err := flannelNetConf(cidr)
	if err != nil {
		return flannelShared{err: err}
	}
	fam := familyOf(cidr)
	return flannelShared{
		files: []serviceFile{
			kubeconfigFile(c, f("kubeconfig"), c.APIServerURL(), pki.FlannelUser, resources.CertFlannel, ""),
			{Path: f("net-conf.json"), Mode: "0644", Content: netConf},
			{Path: f("forwarding.sh"), Mode: "0644", Content: flannelForwarding(fam)},
		},
		health:  flannelHealth(fam),
		cleanup: flannelCleanup(fam),
	}
}

// flannelForwarding turns IP forwarding on, first keeping the value found
// (once per boot) so that removing flannel restores it.
func flannelForwarding(fam podFamily) string {
	return fmt.Sprintf(`set -e
mkdir -p %[1]s
if [ ! -f %[1]s/forward.before ]; then
  if [ -f %[2]s/forward.before ]; then mv %[2]s/forward.before %[1]s/forward.before
  else cat %[3]s > %[1]s/forward.before; fi
fi
echo 1 > %[3]s
`, flannelRun, legacyRouteRun, fam.forward)
}

// flannelHealth: forwarding is on, flanneld wrote this node's lease (its
// Node's podCIDR) and its VXLAN device is up.
func flannelHealth(fam podFamily) string {
	return fmt.Sprintf(`[ "$(cat %s)" = 1 ] && grep -q '^FLANNEL_NETWORK=' %s && ip link show %s up | grep -q %s`,
		fam.forward, FlannelSubnetFile, FlannelLink, shell.Quote(FlannelLink))
}

// flannelCleanup removes what flanneld made, once it is stopped for good:
// its VXLAN device (and with it the routes through it), its iptables
// chains, its lease file, and the forwarding value found before it.
func flannelCleanup(fam podFamily) string {
	return fmt.Sprintf(`ip link delete %[1]s 2>/dev/null
for t in nat filter; do
  for c in $(%[2]s-save -t $t 2>/dev/null | awk '/^:FLANNEL-/{sub(":","",$1); print $1}'); do
    %[2]s-save -t $t | awk -v c="$c" '$1=="-A" && $0 ~ ("-j " c "( |$)") {sub("^-A","-D"); print}' | while read -r rule; do eval "%[2]s -t $t $rule"; done
    %[2]s -t $t -F "$c"; %[2]s -t $t -X "$c"
  done
done
rm -rf /run/flannel
if [ -f %[3]s/forward.before ]; then cat %[3]s/forward.before > %[4]s; fi
rm -rf %[3]s
true`, FlannelLink, fam.iptables, flannelRun, fam.forward)
}

// ExplainDelete says what removing a routes service of the eggo before
// flannel does to running pods: the routes go with it, and flanneld
// replaces them only once it runs on both ends.
func (Service) ExplainDelete(prior resources.Object) []resources.Reason {
	if resources.AttrString(prior.Attrs[svcComponent]) != resources.CompPodRoutes {
		return nil
	}
	return []resources.Reason{{Code: resources.ReasonInterrupts, Detail: "pods on other Nodes cannot reach this Node's pods from when its routes go until flanneld runs on both ends (seconds); pods keep their addresses"}}
}
