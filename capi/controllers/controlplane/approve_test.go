package controlplane

import (
	"strings"
	"testing"

	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// TestJudgePlan: the control plane approves exactly the plans that do to
// each node what its Machines ask, and refuses, saying why, any other.
func TestJudgePlan(t *testing.T) {
	m := planMachines{live: map[string]bool{"cp-1": true, "md-1": true}, deleting: map[string]bool{"md-0": true}}
	plan := func(hooks []string, nodes ...eggov1.NodePlan) *eggov1.PlanSummary {
		return &eggov1.PlanSummary{Nodes: nodes, Hooks: hooks}
	}
	node := func(name string, ops ...string) eggov1.NodePlan { return eggov1.NodePlan{Name: name, Operations: ops} }
	for _, c := range []struct {
		name string
		plan *eggov1.PlanSummary
		want string // "" approves; else a part of the refusal
	}{
		{"a first apply", plan(nil, node("(cluster)", "create pki.cluster_ca", "create cert.admin"),
			node("cp-1", "create host.cp-1", "create etcd_member.cp-1"), node("md-1", "create host.md-1", "create k8s_node.md-1")), ""},
		{"an in-place upgrade", plan(nil, node("cp-1", "update host.cp-1", "update etcd_member.cp-1", "update service.kubelet[\"cp-1\"]"),
			node("md-1", "update host.md-1")), ""},
		{"certificates renewed", plan(nil, node("(cluster)", "replace cert.admin"), node("md-1", "replace cert.kubelet[\"md-1\"]")), ""},
		{"a deleted Machine's node removed", plan(nil, node("md-0", "delete host.md-0", "delete k8s_node.md-0")), ""},
		// An edit of spec.eggo.addons or spec.eggo.runtime: the add-ons
		// and each node's services change in place, the nodes stay.
		{"CoreDNS turned on or retuned", plan(nil, node("(cluster)", "create addon.coredns", "update addon.coredns")), ""},
		{"CoreDNS turned off", plan(nil, node("(cluster)", "delete addon.coredns")), ""},
		{"kube-proxy turned off", plan(nil, node("md-1", "delete service.kube-proxy[\"md-1\"]")), ""},
		{"runtime settings changed", plan(nil, node("cp-1", "update service.containerd[\"cp-1\"]", "update service.kubelet[\"cp-1\"]"),
			node("md-1", "update service.containerd[\"md-1\"]", "replace service.kubelet[\"md-1\"]")), ""},
		{"no summary", nil, "no summary"},
		{"hooks", plan([]string{"hook.x"}), "runs hooks"},
		{"a live Machine's host deleted", plan(nil, node("cp-1", "delete host.cp-1")), "delete host.cp-1 while Machine cp-1 stays"},
		{"a live Machine's etcd member replaced", plan(nil, node("cp-1", "replace etcd_member.cp-1")), "replace etcd_member.cp-1 while Machine cp-1 stays"},
		{"a live Machine's Node deleted", plan(nil, node("md-1", "delete k8s_node.md-1")), "while Machine md-1 stays"},
		{"a deleting Machine's node updated", plan(nil, node("md-0", "update host.md-0")), "update host.md-0 of Machine md-0, which is being deleted"},
		{"a node no Machine names", plan(nil, node("stray", "create host.stray")), "node stray, which no Machine of the cluster names"},
		{"an old node destroyed", plan(nil, node("gone", "delete host.gone")), "no Machine of the cluster names"},
		{"the CA replaced", plan(nil, node("(cluster)", "replace pki.cluster_ca")), "replace pki.cluster_ca, the cluster's own keys"},
		{"an unreadable operation", plan(nil, node("md-1", "explode")), "unreadable operation"},
	} {
		err := judgePlan(c.plan, m)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a refusal with %q", c.name, err, c.want)
		}
	}
}
