package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// From 1.35 the kubelet's configuration keeps a cgroup v1 host running;
// an older minor's configuration is as it was (no restart of its kubelets).
func TestKubeletFailCgroupV1FollowsTheMinor(t *testing.T) {
	for version, want := range map[string]bool{"1.31.4": false, "1.34.4": false, "1.35.4": true, "1.36.5": true, "1.37.2": true} {
		c := &resources.Cluster{KubernetesVersion: version, ConfigDir: "/etc/kubernetes", Network: resources.Network{ServiceCIDR: "10.32.0.0/16"}}
		if got := strings.Contains(kubeletConfig(c), "\nfailCgroupV1: false\n"); got != want {
			t.Errorf("%s: failCgroupV1: false in the kubelet's configuration is %t, want %t", version, got, want)
		}
	}
}

// The plan warns of the cgroup v1 hosts whose kubelet will be 1.35 or
// later: not of a v2 host, an older kubelet, a host with no facts yet or a
// kubelet the plan deletes.
func TestCgroupV1Warning(t *testing.T) {
	hosts := map[string]string{"m0": "v1", "w0": "v1", "w1": "v2"}
	record := func(addr string) (resources.Object, bool) {
		cg, ok := hosts[strings.TrimPrefix(addr, resources.KindHost+".")]
		return resources.Object{Addr: addr, Attrs: resources.Attrs{resources.HostAttrFacts: map[string]any{resources.HostFactCgroup: cg}}}, ok
	}
	kubelet := func(node, version string) resources.Attrs {
		return resources.Attrs{svcComponent: resources.CompKubelet, svcVersion: version}
	}
	recorded := []resources.Object{
		{Addr: resources.ServiceAddr(resources.CompKubelet, "m0"), Node: "m0", Attrs: kubelet("m0", "1.34.4")},
		{Addr: resources.ServiceAddr(resources.CompKubelet, "w0"), Node: "w0", Attrs: kubelet("w0", "1.34.4")},
		{Addr: resources.ServiceAddr(resources.CompKubelet, "w1"), Node: "w1", Attrs: kubelet("w1", "1.34.4")},
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w0"), Node: "w0", Attrs: resources.Attrs{svcComponent: resources.CompContainerd, svcVersion: "1.36.5"}},
	}
	upgrade := func(nodes ...string) []resources.Change {
		var out []resources.Change
		for _, n := range nodes {
			out = append(out, resources.Change{Addr: resources.ServiceAddr(resources.CompKubelet, n), Node: n, Action: resources.Update, After: kubelet(n, "1.35.4")})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		changes []resources.Change
		want    string
	}{
		{"1.34 everywhere", nil, ""},
		{"the upgrade to 1.35", upgrade("m0", "w0", "w1"), "2 hosts (m0, w0) run cgroup v1: Kubernetes 1.35's kubelet"},
		{"a worker's upgrade only", upgrade("w0"), "host w0 runs cgroup v1"},
		{"a v2 host only", upgrade("w1"), ""},
		{"a new node with no facts", []resources.Change{{Node: "w9", Action: resources.Create, After: kubelet("w9", "1.36.5")}}, ""},
		{"its kubelet deleted", append(upgrade("w0"), resources.Change{Node: "w0", Action: resources.Delete}), ""},
	} {
		got, err := Service{}.CheckPlan(resources.PlanReview{Changes: tc.changes, Recorded: recorded, Record: record})
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(got, "\n")
		if (tc.want == "") != (joined == "") || !strings.Contains(joined, tc.want) {
			t.Errorf("%s: warnings %q, want one with %q", tc.name, joined, tc.want)
		}
	}
	// Ten thousand v1 hosts make one line.
	var many []resources.Change
	for i := range 10000 {
		n := fmt.Sprintf("n%05d", i)
		hosts[n] = "v1"
		many = append(many, resources.Change{Node: n, Action: resources.Create, After: kubelet(n, "1.36.5")})
	}
	if got, _ := (Service{}).CheckPlan(resources.PlanReview{Changes: many, Record: record}); len(got) != 1 || !strings.Contains(got[0], "10000 hosts (n00000, n00001, n00002, n00003, n00004 and 9995 more)") {
		t.Errorf("10000 v1 hosts: %q", got)
	}
}
