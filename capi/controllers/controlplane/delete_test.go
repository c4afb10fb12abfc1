package controlplane

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// coreFinalizer stands in for Cluster API's on a Machine: it stays,
// deleting, until its infrastructure let it go.
const coreFinalizer = "machine.cluster.x-k8s.io"

func (e *cpEnv) setFinalizer(t *testing.T, m *clusterv1.Machine, on bool) {
	t.Helper()
	e.must(t, e.c.Get(context.Background(), client.ObjectKeyFromObject(m), m))
	if on {
		m.Finalizers = append(m.Finalizers, coreFinalizer)
	} else {
		m.Finalizers = nil
	}
	e.must(t, e.c.Update(context.Background(), m))
}

// TestControlPlaneScalesDownAndDeletes: replicas 2 → 1 deletes the newest
// Machine, one at a time; the configuration drops its node and the plan
// removing it is approved; deleting the control plane deletes its
// EggoCluster first (eggo destroys the cluster), then its Machines, then
// lets it go.
func TestControlPlaneScalesDownAndDeletes(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns := "cp-down"
	e.setup(t, ns, 2)
	e.reconcile(t, ns)
	ms := e.machines(t, ns)
	if len(ms) != 2 {
		t.Fatalf("%d machines, want 2", len(ms))
	}
	sortOldestFirst(ms)
	for i := range ms {
		e.provision(t, &ms[i], "h"+string(rune('1'+i)), "10.0.0.1"+string(rune('1'+i)), `["master","etcd"]`)
		e.setFinalizer(t, &ms[i], true)
	}
	e.reconcile(t, ns)
	cp := e.controlPlane(t, ns)
	if !strings.Contains(strings.Join(cp.Finalizers, ","), Finalizer) {
		t.Fatalf("the control plane has no finalizer: %v", cp.Finalizers)
	}

	one := int32(1)
	cp.Spec.Replicas = &one
	e.must(t, e.c.Update(ctx, cp))
	e.reconcile(t, ns)
	e.reconcile(t, ns) // no second deletion while one goes
	var oldest, newest clusterv1.Machine
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&ms[0]), &oldest))
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&ms[1]), &newest))
	if newest.DeletionTimestamp.IsZero() || !oldest.DeletionTimestamp.IsZero() {
		t.Fatalf("scale down: newest deleting %v, oldest deleting %v; want the newest only", !newest.DeletionTimestamp.IsZero(), !oldest.DeletionTimestamp.IsZero())
	}
	if !meta.IsStatusConditionTrue(e.controlPlane(t, ns).Status.Conditions, cpv1.ScalingDownCondition) {
		t.Error("ScalingDown is not true while a Machine goes")
	}
	ec := &eggov1.EggoCluster{}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, ec))
	if strings.Contains(*ec.Spec.Config.Inline, newest.Name) || !strings.Contains(*ec.Spec.Config.Inline, oldest.Name) {
		t.Fatalf("the configuration after the scale down:\n%s", *ec.Spec.Config.Inline)
	}
	e.planned(t, ec, "down000000000000", &eggov1.PlanSummary{Destroy: 2, Nodes: []eggov1.NodePlan{
		{Name: newest.Name, Operations: []string{"delete etcd_member." + newest.Name, "delete host." + newest.Name}}}})
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Annotations[eggov1.ApproveAnnotation] != "down000000000000" {
		t.Fatalf("the plan removing the deleted Machine's node was not approved: %+v", e.controlPlane(t, ns).Status.Conditions)
	}
	e.setFinalizer(t, &newest, false) // its SSHMachine released it

	// Deletion: the EggoCluster goes first, the Machines after it.
	cp = e.controlPlane(t, ns)
	e.must(t, e.c.Delete(ctx, cp))
	e.reconcile(t, ns)
	if err := e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec); !apierrors.IsNotFound(err) {
		t.Fatalf("the EggoCluster after the control plane's deletion: %v", err)
	}
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&oldest), &oldest))
	if !oldest.DeletionTimestamp.IsZero() {
		t.Fatal("a Machine was deleted before the EggoCluster was gone")
	}
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&oldest), &oldest))
	if oldest.DeletionTimestamp.IsZero() {
		t.Fatal("the Machine is not deleted once the EggoCluster is gone")
	}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-cp"}, cp))
	e.setFinalizer(t, &oldest, false)
	e.reconcile(t, ns)
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-cp"}, cp); !apierrors.IsNotFound(err) {
		t.Fatalf("the control plane after its Machines went: %v (finalizers %v)", err, cp.Finalizers)
	}
}
