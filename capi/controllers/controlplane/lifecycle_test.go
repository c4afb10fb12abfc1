package controlplane

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// planned plays the GitOps controller: a plan of ec's current spec waits
// for approval, with the summary given.
func (e *cpEnv) planned(t *testing.T, ec *eggov1.EggoCluster, hash string, s *eggov1.PlanSummary) {
	t.Helper()
	e.must(t, e.c.Get(context.Background(), client.ObjectKeyFromObject(ec), ec))
	ec.Status.ObservedGeneration, ec.Status.LastPlanHash, ec.Status.PlanSummary = ec.Generation, hash, s
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionApprovalPending, Status: metav1.ConditionTrue, Reason: eggov1.ReasonAwaitingApproval})
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionReady, Status: metav1.ConditionFalse, Reason: eggov1.ReasonAwaitingApproval})
	e.must(t, e.c.Status().Update(context.Background(), ec))
}

// appliedAll plays the GitOps controller after a successful apply of the
// plan hash: every node named is in eggo's state.
func (e *cpEnv) appliedAll(t *testing.T, ec *eggov1.EggoCluster, hash string, nodes ...string) {
	t.Helper()
	e.must(t, e.c.Get(context.Background(), client.ObjectKeyFromObject(ec), ec))
	ec.Status.LastAppliedPlanHash = hash
	ec.Status.Nodes = nil
	for _, n := range nodes {
		ec.Status.Nodes = append(ec.Status.Nodes, eggov1.NodeStatus{Name: n, State: "Applied (12 resources)"})
	}
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionApprovalPending, Status: metav1.ConditionFalse, Reason: eggov1.ReasonApplied})
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionReady, Status: metav1.ConditionTrue, Reason: eggov1.ReasonApplied})
	e.must(t, e.c.Status().Update(context.Background(), ec))
}

// upToDate is the UpToDate condition of Machine name, as stored.
func (e *cpEnv) upToDate(t *testing.T, ns, name string) *metav1.Condition {
	t.Helper()
	var m clusterv1.Machine
	e.must(t, e.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &m))
	return meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineUpToDateCondition)
}

func (e *cpEnv) controlPlane(t *testing.T, ns string) *cpv1.EggoControlPlane {
	t.Helper()
	var cp cpv1.EggoControlPlane
	e.must(t, e.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "work-cp"}, &cp))
	return &cp
}

// TestControlPlaneApprovesAndObserves: the control plane approves the
// plan that creates its Machines' nodes and refuses one that would take a
// live Machine's host; after the apply it is initialized and Available
// with its replicas counted; a version bump is rolled in place and the
// Machines then say the new version. Each Machine's UpToDate condition
// follows the up-to-date count: False until applied, True after, False
// naming both versions while the roll is pending, True once recorded.
func TestControlPlaneApprovesAndObserves(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns := "cp-approve"
	e.setup(t, ns, 1)
	e.reconcile(t, ns)
	ms := e.machines(t, ns)
	e.provision(t, &ms[0], "h1", "10.0.0.11", `["master","etcd"]`)
	cpm := ms[0].Name
	e.reconcile(t, ns)
	ec := &eggov1.EggoCluster{}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, ec))
	if cp := e.controlPlane(t, ns); meta.IsStatusConditionTrue(cp.Status.Conditions, cpv1.AvailableCondition) ||
		cp.Status.Initialization.ControlPlaneInitialized != nil {
		t.Fatalf("before any apply: %+v", cp.Status)
	}
	if c := e.upToDate(t, ns, cpm); c == nil || c.Status != metav1.ConditionFalse || c.Reason != clusterv1.MachineNotUpToDateReason {
		t.Errorf("the Machine's UpToDate before any apply: %+v", c)
	}

	// A plan that would delete the live master's host: not approved.
	bad := &eggov1.PlanSummary{Destroy: 1, Nodes: []eggov1.NodePlan{{Name: cpm, Operations: []string{"delete host." + cpm}}}}
	e.planned(t, ec, "bad0000000000000", bad)
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if _, ok := ec.Annotations[eggov1.ApproveAnnotation]; ok {
		t.Fatalf("a plan deleting a live Machine's host was approved")
	}
	if c := meta.FindStatusCondition(e.controlPlane(t, ns).Status.Conditions, cpv1.PlannedCondition); c == nil || c.Reason != UnexpectedPlanReason ||
		!strings.Contains(c.Message, "delete host."+cpm+" while Machine "+cpm+" stays") {
		t.Errorf("Planned after an unexpected plan: %+v", c)
	}

	// The plan that creates the master: approved, by its exact hash.
	good := &eggov1.PlanSummary{Add: 3, Nodes: []eggov1.NodePlan{{Name: "(cluster)", Operations: []string{"create pki.cluster_ca"}},
		{Name: cpm, Operations: []string{"create host." + cpm, "create etcd_member." + cpm}}}}
	e.planned(t, ec, "good000000000000", good)
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if got := ec.Annotations[eggov1.ApproveAnnotation]; got != "good000000000000" {
		t.Fatalf("approval annotation %q, want the plan's hash", got)
	}

	// Applied: initialized, Available, one ready, up-to-date replica at
	// the spec's version.
	e.appliedAll(t, ec, "good000000000000", cpm)
	e.reconcile(t, ns)
	cp := e.controlPlane(t, ns)
	st := cp.Status
	if st.Initialization.ControlPlaneInitialized == nil || !*st.Initialization.ControlPlaneInitialized ||
		!meta.IsStatusConditionTrue(st.Conditions, cpv1.AvailableCondition) || *st.ReadyReplicas != 1 || *st.UpToDateReplicas != 1 ||
		st.Version != "v1.36.5" || len(st.Versions) != 1 || st.Versions[0].Replicas != 1 || st.LastAppliedPlanHash != "good000000000000" ||
		meta.IsStatusConditionTrue(st.Conditions, cpv1.RollingOutCondition) {
		t.Fatalf("after the apply: %+v", st)
	}
	if c := e.upToDate(t, ns, cpm); c == nil || c.Status != metav1.ConditionTrue || c.Reason != clusterv1.MachineUpToDateReason {
		t.Errorf("the Machine's UpToDate after the apply: %+v", c)
	}

	// A version bump: the spec is rewritten; until eggo applied it the
	// replica is not up to date and the roll is on.
	cp.Spec.Version = "v1.37.2"
	e.must(t, e.c.Update(ctx, cp))
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if !strings.Contains(*ec.Spec.Config.Inline, `kubernetes_version = "1.37.2"`) {
		t.Fatalf("the bumped version is not in the configuration:\n%s", *ec.Spec.Config.Inline)
	}
	upgrade := &eggov1.PlanSummary{Change: 2, Nodes: []eggov1.NodePlan{{Name: cpm, Operations: []string{"update host." + cpm, "update etcd_member." + cpm}}}}
	e.planned(t, ec, "up00000000000000", upgrade)
	e.reconcile(t, ns)
	st = e.controlPlane(t, ns).Status
	if *st.UpToDateReplicas != 0 || !meta.IsStatusConditionTrue(st.Conditions, cpv1.RollingOutCondition) || st.Version != "v1.36.5" ||
		!meta.IsStatusConditionTrue(st.Conditions, cpv1.AvailableCondition) {
		t.Errorf("during the roll: %+v", st)
	}
	if c := e.upToDate(t, ns, cpm); c == nil || c.Status != metav1.ConditionFalse || c.Reason != clusterv1.MachineNotUpToDateReason ||
		!strings.Contains(c.Message, "* Version v1.36.5, v1.37.2 required") {
		t.Errorf("the Machine's UpToDate during the roll: %+v", c)
	}
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Annotations[eggov1.ApproveAnnotation] != "up00000000000000" {
		t.Errorf("the in-place upgrade's plan was not approved")
	}
	e.appliedAll(t, ec, "up00000000000000", cpm)
	e.reconcile(t, ns)
	st = e.controlPlane(t, ns).Status
	if *st.UpToDateReplicas != 1 || st.Version != "v1.37.2" || meta.IsStatusConditionTrue(st.Conditions, cpv1.RollingOutCondition) {
		t.Errorf("after the roll: %+v", st)
	}
	if c := e.upToDate(t, ns, cpm); c == nil || c.Status != metav1.ConditionTrue || c.Reason != clusterv1.MachineUpToDateReason || c.Message != "" {
		t.Errorf("the Machine's UpToDate after the roll: %+v", c)
	}
	var m clusterv1.Machine
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: cpm}, &m))
	if m.Spec.Version != "v1.37.2" {
		t.Errorf("the Machine after the in-place roll says %s, want v1.37.2", m.Spec.Version)
	}
}

// TestControlPlaneSettles: Machines made together join in one
// configuration: a ready worker is not written while another made with it
// still waits for its host, and both are once it has one.
func TestControlPlaneSettles(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns := "cp-settle"
	e.setup(t, ns, 1)
	e.reconcile(t, ns)
	ms := e.machines(t, ns)
	e.provision(t, &ms[0], "h1", "10.0.0.11", `["master","etcd"]`)
	e.reconcile(t, ns)
	ec := &eggov1.EggoCluster{}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, ec))
	gen := ec.Generation

	w1, w2 := e.newWorker(t, ns, "work-md-a"), e.newWorker(t, ns, "work-md-b")
	e.provision(t, w1, "h2", "10.0.0.21", `["worker"]`)
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Generation != gen || strings.Contains(*ec.Spec.Config.Inline, "work-md-a") {
		t.Fatalf("a worker was written while one made with it waits:\n%s", *ec.Spec.Config.Inline)
	}
	e.provision(t, w2, "h3", "10.0.0.22", `["worker"]`)
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Generation != gen+1 || !strings.Contains(*ec.Spec.Config.Inline, `node "work-md-a"`) || !strings.Contains(*ec.Spec.Config.Inline, `node "work-md-b"`) {
		t.Fatalf("want both workers in one new generation (%d → %d):\n%s", gen, ec.Generation, *ec.Spec.Config.Inline)
	}
}

// TestControlPlaneRendersLoadBalancer: the host the SSHCluster claimed
// for eggo's load balancer is the node <cluster>-lb (role loadbalance, no
// providerID: it is no Node), and the plan that creates it is approved.
func TestControlPlaneRendersLoadBalancer(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns := "cp-lb"
	cluster := e.setup(t, ns, 1)
	e.must(t, e.c.Create(ctx, &infrav1.SSHHost{ObjectMeta: metav1.ObjectMeta{Name: "lbhost", Namespace: ns},
		Spec: infrav1.SSHHostSpec{Pool: "lbs", Address: "10.0.0.100", HostKey: testHostKey, SSHKeySecretRef: infrav1.SecretReference{Name: "pool-key"},
			ClaimRef: &infrav1.SSHHostClaim{ClusterName: "work", ClusterUID: string(cluster.UID), Purpose: infrav1.ClaimLoadBalancer}}}))
	e.reconcile(t, ns)
	ms := e.machines(t, ns)
	e.provision(t, &ms[0], "h1", "10.0.0.11", `["master","etcd"]`)
	e.reconcile(t, ns)
	ec := &eggov1.EggoCluster{}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, ec))
	hcl := *ec.Spec.Config.Inline
	lb := hcl[strings.Index(hcl, `node "work-lb"`):]
	lb = lb[:strings.Index(lb, "\n}\n")]
	if !strings.Contains(lb, `address = "10.0.0.100"`) || !strings.Contains(lb, `roles   = ["loadbalance"]`) || strings.Contains(lb, "provider_id") {
		t.Fatalf("the load balancer's node:\n%s", lb)
	}
	e.planned(t, ec, "lb00000000000000", &eggov1.PlanSummary{Add: 2, Nodes: []eggov1.NodePlan{
		{Name: "work-lb", Operations: []string{"create host.work-lb", `create service.kube-lb["work-lb"]`}},
		{Name: ms[0].Name, Operations: []string{"create host." + ms[0].Name}}}})
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Annotations[eggov1.ApproveAnnotation] != "lb00000000000000" {
		t.Errorf("the plan creating the load balancer was not approved: %+v", e.controlPlane(t, ns).Status.Conditions)
	}
}
