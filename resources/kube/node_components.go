package kube

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// BundleImageDir holds the image archives the bundle ships; containerd
// imports every one of them when it starts.
const BundleImageDir = resources.ContainerdImageDir

// LegacyCNIConfigPath is the bridge network eggo wrote before flannel:
// containerd's update removes it (the service kind deletes the files a
// service no longer has).
const LegacyCNIConfigPath = "/etc/cni/net.d/10-eggo-bridge.conflist"

// The endpoint Nodes reach the apiservers at, and what they wait for.
func apiDeps(c *resources.Cluster) []string {
	if lbs := c.NodesWithRole("loadbalance"); len(lbs) > 0 && c.APIEndpoint == "" {
		var deps []string
		for _, lb := range lbs {
			deps = append(deps, resources.ServiceAddr(resources.CompLoadBalancer, lb.Name))
		}
		return deps
	}
	var deps []string
	for _, m := range c.NodesWithRole("master") {
		deps = append(deps, resources.ServiceAddr(resources.CompAPIServer, m.Name))
	}
	return deps
}

// controlPlaneRoll is how a master's services roll in an upgrade: one
// master at a time, all of it (its control plane, then its containerd,
// kubelet and kube-proxy) before the next, as kubeadm upgrades a
// control-plane node whole. So a master's upgrade hooks wrap one unit,
// and the next master waits for its post-upgrade hook.
func controlPlaneRoll(n resources.Node) *resources.Roll {
	return &resources.Roll{Group: "control-plane", Stage: stageControlPlane, Unit: n.Name, Batch: 1}
}

// nodesRoll is the last stage of an upgrade: after the control plane and
// the load balancers, max_unavailable Nodes at a time.
func nodesRoll(c *resources.Cluster, n resources.Node) *resources.Roll {
	return &resources.Roll{Group: "nodes", Stage: stageNodes, Unit: n.Name, Batch: max(c.MaxUnavailable, 1)}
}

// nodeRoll is how a Node's containerd, kubelet and kube-proxy roll: a
// master's with its control plane (they talk to that master's apiserver
// only, see nodeAPIServer, so nothing ties them to a later stage), a
// worker's in the last stage.
func nodeRoll(c *resources.Cluster, n resources.Node) *resources.Roll {
	if n.HasRole("master") {
		return controlPlaneRoll(n)
	}
	return nodesRoll(c, n)
}

// nodeAPIServer is the apiserver a Node's kubelet and kube-proxy talk to,
// and the services they wait for: a master's own apiserver (kubeadm's
// ControlPlaneKubeletLocalMode: during an upgrade a master's kubelet is
// never newer than the apiserver it talks to, and a master's Node does not
// wait for the load balancers), a worker's the cluster's endpoint.
func nodeAPIServer(c *resources.Cluster, n resources.Node) (url string, deps []string) {
	if n.HasRole("master") {
		return localAPIServer(), []string{resources.ServiceAddr(resources.CompAPIServer, n.Name)}
	}
	return c.APIServerURL(), apiDeps(c)
}

// kubeletShared is what every Node's kubelet has alike: built once per
// plan.
type kubeletShared struct {
	dir, config, kubeconfig string // paths
	configFile, caFile      serviceFile
	kubectl                 string
	cgroupRootFile          serviceFile // makes a node's own cgroup root (runtime.cgroup_root_per_node)
}

func newKubeletShared(c *resources.Cluster) kubeletShared {
	dir := path.Join(c.ConfigDir, resources.CompKubelet)
	k := kubeletShared{dir: dir, config: path.Join(dir, "config.yaml"), kubeconfig: path.Join(dir, "kubeconfig")}
	k.configFile = serviceFile{Path: k.config, Mode: "0644", Content: kubeletConfig(c)}
	k.caFile = certFile(dir, "ca.crt", pkiRef(resources.PKIClusterCA, "cert"))
	k.kubectl = kubectlWith(k.kubeconfig)
	k.cgroupRootFile = serviceFile{Path: path.Join(dir, "cgroup-root.sh"), Mode: "0644", Content: `# Makes the cgroup root $1 in every cgroup v1 hierarchy (eggo).
for d in /sys/fs/cgroup/*/; do mkdir -p "$d${1#/}"; done
`}
	return k
}

// kubeletCleanup is what goes with a kubelet: its mounts.
const kubeletCleanup = `awk '{print $2}' /proc/mounts | grep -E '^/var/lib/kubelet/' | sort -r | xargs -r -n1 umount -l 2>/dev/null
true`

// nodeCgroupRoot is the kubelet's cgroup root with
// runtime.cgroup_root_per_node, as a unit writes it: named after the
// host's machine ID (systemd's %m), so kubelets that share a cgroup
// hierarchy never see each other's pods, even two nodes of one name in
// two clusters. The cleanup finds it by /etc/machine-id.
const nodeCgroupRoot = "/eggo-%m"

func Kubelet(c *resources.Cluster, n resources.Node) componentSpec {
	k := resources.Shared(c, sharedKey("kubelet"), func() kubeletShared { return newKubeletShared(c) })
	server, apiserver := nodeAPIServer(c, n)
	own := map[string]string{
		"config":            k.config,
		"hostname-override": n.Name,
		"kubeconfig":        k.kubeconfig,
		"node-ip":           n.Address,
	}
	// Registered tainted, so nothing lands on a master or a tainted
	// node in the moment before its k8s_node (which keeps the taints)
	// runs.
	if taints := nodeTaints(c, n); len(taints) > 0 {
		own["register-with-taints"] = strings.Join(registerTaints(taints), ",")
	}
	if n.ProviderID != "" {
		own["provider-id"] = n.ProviderID
	}
	files := []serviceFile{
		k.caFile,
		certFile(k.dir, "kubelet.crt", certRef(resources.CertKubelet, n.Name, "cert")),
		certFile(k.dir, "kubelet.key", certRef(resources.CertKubelet, n.Name, "key")),
		kubeconfigFile(c, k.kubeconfig, server, "system:node:"+n.Name, resources.CertKubelet, n.Name),
		k.configFile,
	}
	// Serving, registered, Ready, and at the version installed.
	health := httpCheck(10248, "/healthz", "ok") + " && " +
		fmt.Sprintf(`[ "$(%s get node %s -o jsonpath='{.status.conditions[?(@.type=="Ready")].status} {.status.nodeInfo.kubeletVersion}')" = %s ]`,
			k.kubectl, shell.Quote(n.Name), shell.Quote("True "+gitVersion(c.KubernetesVersion)))
	if c.StaticPods() && n.HasRole("master") {
		// The kubelet runs the master's apiserver: it comes first, and is
		// healthy once it serves; its Node registers when the apiserver
		// it starts is up (kube-proxy waits for that apiserver).
		apiserver = nil
		health = httpCheck(10248, "/healthz", "ok")
	}
	var extra, specifierArgs []string
	if c.Runtime.CgroupRootPerNode {
		specifierArgs = []string{"--cgroup-root=" + nodeCgroupRoot}
		files = append(files, k.cgroupRootFile)
		extra = append(extra, "ExecStartPre=/bin/sh "+unitArg(k.cgroupRootFile.Path)+" "+nodeCgroupRoot)
	}
	return componentSpec{
		service: service{
			Component: resources.CompKubelet,
			UnitName:  resources.CompKubelet + ".service",
			Unit: renderUnit(unitOptions{description: "Kubernetes node agent (eggo)", exec: "/usr/local/bin/kubelet",
				args: flags(c, resources.CompKubelet, own), specifierArgs: specifierArgs,
				after: []string{resources.CompContainerd + ".service"}, extra: extra}),
			Files:         files,
			DataDirs:      dataDirs(resources.CompKubelet),
			Health:        health,
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       kubeletCleanup,
			Version:       c.KubernetesVersion,
		},
		deps: append([]string{resources.ServiceAddr(resources.CompContainerd, n.Name)}, apiserver...),
		roll: runtimeRoll(c, n),
	}
}

// kubeletConfig is the same on every Node.
func kubeletConfig(c *resources.Cluster) string {
	dir := path.Join(c.ConfigDir, resources.CompKubelet)
	f := func(name string) string { return path.Join(dir, name) }
	dnsIP, _ := resources.ClusterDNSIP(c.Network.ServiceCIDR) // the language checked service_cidr
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: %s
authorization:
  mode: Webhook
cgroupDriver: cgroupfs
clusterDNS:
- %s
clusterDomain: %s
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
failSwapOn: false
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: %s
tlsPrivateKeyFile: %s
`, f("ca.crt"), dnsIP, c.DNSDomain(), f("kubelet.crt"), f("kubelet.key")) + kubeletCgroupV1(c) + staticPodPath(c) + evictionHard(c) + imageGC(c)
}

// imageGC is the kubelet's image garbage collection thresholds from the
// runtime block (none: its defaults).
func imageGC(c *resources.Cluster) string {
	var b strings.Builder
	if p := c.Runtime.ImageGCHighPercent; p != 0 {
		fmt.Fprintf(&b, "imageGCHighThresholdPercent: %d\n", p)
	}
	if p := c.Runtime.ImageGCLowPercent; p != 0 {
		fmt.Fprintf(&b, "imageGCLowThresholdPercent: %d\n", p)
	}
	return b.String()
}

// evictionHard is the kubelet's evictionHard from runtime.eviction_hard
// (none: the kubelet's defaults).
func evictionHard(c *resources.Cluster) string {
	if len(c.Runtime.EvictionHard) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("evictionHard:\n")
	for _, k := range slices.Sorted(maps.Keys(c.Runtime.EvictionHard)) {
		fmt.Fprintf(&b, "  %s: %q\n", k, c.Runtime.EvictionHard[k])
	}
	return b.String()
}

// staticPodPath is the kubelet's manifests directory in the pod
// implementation (on every Node, as kubeadm sets it; only masters have
// manifests).
func staticPodPath(c *resources.Cluster) string {
	if !c.StaticPods() {
		return ""
	}
	return "staticPodPath: " + ManifestDir(c) + "\n"
}

// kubeProxyShared is what every Node's kube-proxy has alike: built once
// per plan.
type kubeProxyShared struct {
	unit       string
	kubeconfig serviceFile
}

func kubeProxy(c *resources.Cluster, n resources.Node) componentSpec {
	dir := path.Join(c.ConfigDir, resources.CompKubeProxy)
	f := func(name string) string { return path.Join(dir, name) }
	shared := resources.Shared(c, sharedKey("kube-proxy"), func() kubeProxyShared {
		return kubeProxyShared{
			unit: renderUnit(unitOptions{description: "Kubernetes service proxy (eggo)", exec: "/usr/local/bin/kube-proxy",
				args: flags(c, resources.CompKubeProxy, map[string]string{"config": f("config.yaml")})}),
			kubeconfig: kubeconfigFile(c, f("kubeconfig"), c.APIServerURL(), "system:kube-proxy", resources.CertKubeProxy, ""),
		}
	})
	kubeconfig := shared.kubeconfig
	if server, _ := nodeAPIServer(c, n); server != c.APIServerURL() {
		kubeconfig = kubeconfigFile(c, f("kubeconfig"), server, "system:kube-proxy", resources.CertKubeProxy, "")
	}
	config := fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: %s
clusterCIDR: %s
conntrack:
  maxPerCore: 0
healthzBindAddress: 127.0.0.1:10256
hostnameOverride: %s
metricsBindAddress: 127.0.0.1:10249
mode: iptables
`, f("kubeconfig"), c.Network.PodCIDR, n.Name)
	return componentSpec{
		service: service{
			Component: resources.CompKubeProxy,
			UnitName:  resources.CompKubeProxy + ".service",
			Unit:      shared.unit,
			Files: []serviceFile{
				kubeconfig,
				{Path: f("config.yaml"), Mode: "0644", Content: config},
			},
			Health:        httpCheck(10256, "/healthz", "200 OK"),
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       kubeProxyCleanup,
			Version:       c.KubernetesVersion,
		},
		deps: kubeProxyDeps(c, n),
		roll: nodeRoll(c, n),
	}
}

// kubeProxyCleanup: kube-proxy's iptables rules go with it.
const kubeProxyCleanup = "/usr/local/bin/kube-proxy --cleanup >/dev/null 2>&1; true"

// kubeProxyDeps: kube-proxy comes after its Node's kubelet, and on a master
// of the pod implementation after the apiserver that kubelet runs.
func kubeProxyDeps(c *resources.Cluster, n resources.Node) []string {
	deps := []string{resources.ServiceAddr(resources.CompKubelet, n.Name)}
	if c.StaticPods() && n.HasRole("master") {
		deps = append(deps, resources.ServiceAddr(resources.CompAPIServer, n.Name))
	}
	return deps
}
