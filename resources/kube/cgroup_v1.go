package kube

import (
	"fmt"
	"maps"
	"slices"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// failCgroupV1Since is the first minor whose kubelet refuses a cgroup v1
// host unless its configuration says failCgroupV1: false (KEP-5573).
const failCgroupV1Since = 35

// kubeletCgroupV1 is the kubelet configuration's line for cgroup v1: from
// 1.35, failCgroupV1: false on every Node. A cgroup v2 host is not
// affected by it; a v1 host keeps running, and the plan warns of it
// (cgroupV1Warning). Older minors' kubelets run on v1 by default, and
// their configuration stays as it was.
func kubeletCgroupV1(c *resources.Cluster) string {
	if c.Minor().Minor < failCgroupV1Since {
		return ""
	}
	return "failCgroupV1: false\n"
}

// cgroupV1Warning names the hosts whose facts say cgroup v1 and whose
// kubelet, once the plan is applied, is 1.35 or later. A host not yet
// refreshed has no facts: a new cluster's first plan cannot tell.
func cgroupV1Warning(r resources.PlanReview) string {
	versions := map[string]string{} // kubelet's node → the version it will run
	for _, o := range r.Recorded {
		if resources.AttrString(o.Attrs[svcComponent]) == resources.CompKubelet {
			versions[o.Node] = resources.AttrString(o.Attrs[svcVersion])
		}
	}
	for _, ch := range r.Changes {
		if ch.Action == resources.Delete {
			delete(versions, ch.Node)
		} else if resources.AttrString(ch.After[svcComponent]) == resources.CompKubelet {
			versions[ch.Node] = resources.AttrString(ch.After[svcVersion])
		}
	}
	var hosts []string
	newest := 0
	for _, node := range slices.Sorted(maps.Keys(versions)) {
		v, ok := resources.ParseKubernetesVersion(versions[node])
		if !ok || v.Minor < failCgroupV1Since || hostCgroup(r, node) != "v1" {
			continue
		}
		hosts = append(hosts, node)
		newest = max(newest, v.Minor)
	}
	if len(hosts) == 0 {
		return ""
	}
	verb := "run"
	if len(hosts) == 1 {
		verb = "runs"
	}
	return fmt.Sprintf("%s %s cgroup v1: Kubernetes 1.%d's kubelet refuses cgroup v1 unless told otherwise, and eggo tells it "+
		"(failCgroupV1: false). Kubernetes, containerd and runc have deprecated cgroup v1 and will drop it: boot these hosts "+
		"with cgroup v2 (systemd.unified_cgroup_hierarchy=1 on the kernel command line) before an upgrade takes it away",
		hostsNamed(hosts), verb, newest)
}

// hostsNamed: "host m0", "3 hosts (m0, m1, m2)", "900 hosts (m0, … and 895 more)".
func hostsNamed(names []string) string {
	if len(names) == 1 {
		return "host " + names[0]
	}
	return fmt.Sprintf("%d hosts (%s)", len(names), text.Some(names, 5))
}

// hostCgroup is the cgroup fact of node's host record ("" when unknown).
func hostCgroup(r resources.PlanReview, node string) string {
	if r.Record == nil {
		return ""
	}
	o, ok := r.Record(resources.HostAddr(node))
	if !ok {
		return ""
	}
	facts, _ := o.Attrs[resources.HostAttrFacts].(map[string]any)
	return resources.AttrString(facts[resources.HostFactCgroup])
}
