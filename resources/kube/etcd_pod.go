package kube

import (
	"fmt"
	"path"

	"github.com/eggo-project/eggo/resources"
)

// Static-pod etcd (etcd_implementation = "pod"): each member a static pod
// its node's kubelet runs from the bundle's etcd image, kubeadm's manifest,
// rendered from the same description as the unit.

// etcdMetricsURL is where a static-pod member serves /health in plain
// HTTP for its kubelet's probes, on loopback only (kubeadm's).
const etcdMetricsURL = "http://127.0.0.1:2381"

// etcdEnvironmentFile is the environment variable the bundle's etcd image
// reads KEY=VALUE lines from (tools/bundle/etcd), as the unit's
// EnvironmentFile=-: how the member first starts.
const etcdEnvironmentFile = "EGGO_ETCD_ENVIRONMENT_FILE"

// etcdRunner sets how a member runs — its unit, or its static pod — and
// returns what that waits for ("" for nothing more than its host). How the
// member first starts (a new cluster or joining) is in an environment file
// written once, so neither the unit nor the manifest changes when members
// come and go.
func etcdRunner(c *resources.Cluster, n resources.Node, s *service, own map[string]string) string {
	dir := etcdDir(c)
	bootstrap := path.Join(dir, "bootstrap.env")
	if !c.EtcdStaticPods() {
		s.UnitName = resources.CompEtcd + ".service"
		s.Unit = renderUnit(unitOptions{description: "etcd key-value store (eggo)", exec: "/usr/local/bin/etcd",
			args: flags(c, resources.CompEtcd, own), typ: "notify",
			extra: []string{"EnvironmentFile=-" + bootstrap, "TimeoutStartSec=0"}})
		return ""
	}
	own["listen-metrics-urls"] = etcdMetricsURL
	o := unitOptions{exec: "/usr/local/bin/etcd", args: flags(c, resources.CompEtcd, own)}
	p := podOptions{probe: httpProbe{host: "127.0.0.1", port: 2381, live: "/health?exclude=NOSPACE&serializable=true", plain: true},
		cpu: "100m", memory: "100Mi", mount: []string{dir}, writable: s.DataDirs, env: map[string]string{etcdEnvironmentFile: bootstrap}}
	return runAsStaticPod(c, n, s, c.Minor().Etcd, resources.EtcdImageArchive, o, p)
}

// checkEtcdPod refuses static-pod etcd on a node that is not a master,
// naming the setting and the node: an etcd-only node has no kubelet to run
// the pod, and a worker's kubelet waits for the apiservers, which wait for
// etcd (kubeadm runs etcd's pods on control-plane nodes only, too).
func checkEtcdPod(c *resources.Cluster, n resources.Node) error {
	if n.HasRole("master") {
		return resources.CheckBundleFile(c, n, resources.EtcdImageArchive, EtcdMemberAddr(n.Name))
	}
	return resources.Blame(c.At("etcd_implementation"), "Static-pod etcd on a node that is not a master",
		"%s: node %s (%s) has the etcd role but not the master role; static-pod etcd runs on masters only, whose kubelets need no apiserver to start: give it the master role, or keep etcd_implementation = \"binary\"",
		EtcdMemberAddr(n.Name), n.Name, n.Source)
}

// etcdRoll is a member's place in a rolling change: the etcd stage, one
// member at a time.
func etcdRoll(n resources.Node) *resources.Roll {
	return &resources.Roll{Group: "etcd", Stage: stageEtcd, Unit: n.Name, Batch: 1}
}

// runtimeRoll is where a node's containerd and kubelet roll: with its
// node's other components, but with etcd's stage when they run its
// static-pod member — a new kubelet first, then the pods it runs, and the
// kubelet never waits for the control plane that waits for etcd.
func runtimeRoll(c *resources.Cluster, n resources.Node) *resources.Roll {
	if c.EtcdStaticPods() && n.HasRole("etcd") {
		return etcdRoll(n)
	}
	return nodeRoll(c, n)
}

// refuseEtcdSwitch refuses to move a running member between its unit and a
// static pod: the two run different etcd builds (the bundle's etcd binary,
// the image's etcd from etcd's Go modules), and a member cannot go back a
// minor version, so the switch could not be undone. The control plane's
// switch can (see switchesRunner); etcd's implementation is chosen when the
// cluster is made.
func refuseEtcdSwitch(prior *resources.Object, desired resources.Desired) error {
	if prior == nil || prior.Attrs == nil {
		return nil
	}
	have, want := parseService(prior.Attrs), parseService(desired.Attrs)
	if have.UnitName == "" || (have.Pod == nil) == (want.Pod == nil) {
		return nil
	}
	return fmt.Errorf("%s runs as the %s and the configuration asks for the %s: etcd_implementation cannot change on a running cluster "+
		"(the unit runs the bundle's etcd binary and the static pod the etcd image's, and a member cannot go back to an older etcd). "+
		"Keep etcd_implementation as the cluster was made", desired.Addr, have.runnerText(), want.runnerText())
}
