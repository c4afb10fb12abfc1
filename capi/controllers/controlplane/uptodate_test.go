package controlplane

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestUpToDateKeepsCoreConditions: the UpToDate condition is written onto
// a Machine whose conditions core's Machine controller changed since the
// control plane read it (its copy is stale): the write conflicts, is done
// again on the Machine read afresh, and core's condition stays.
func TestUpToDateKeepsCoreConditions(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns := "cp-uptodate"
	e.setup(t, ns, 1)
	e.reconcile(t, ns)
	stale := e.machines(t, ns)[0]
	why := []string{"Version v1.36.4, v1.36.5 required"} // not what the pass wrote

	// Core writes a condition of its own meanwhile.
	var m clusterv1.Machine
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&stale), &m))
	meta.SetStatusCondition(&m.Status.Conditions, metav1.Condition{Type: clusterv1.MachineNodeHealthyCondition,
		Status: metav1.ConditionUnknown, Reason: "NodeDoesNotExist"})
	e.must(t, e.c.Status().Update(ctx, &m))

	e.must(t, e.r.setUpToDate(ctx, &stale, false, why))
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&stale), &m))
	if c := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineNodeHealthyCondition); c == nil || c.Reason != "NodeDoesNotExist" {
		t.Errorf("core's NodeHealthy was dropped: %+v", m.Status.Conditions)
	}
	if c := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineUpToDateCondition); c == nil || c.Status != metav1.ConditionFalse ||
		c.Message != "* "+why[0] || c.ObservedGeneration != m.Generation {
		t.Errorf("UpToDate: %+v", c)
	}

	// Unchanged: nothing is written.
	rv := m.ResourceVersion
	e.must(t, e.r.setUpToDate(ctx, &m, false, why))
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(&m), &m))
	if m.ResourceVersion != rv {
		t.Errorf("an unchanged UpToDate was written again (%s → %s)", rv, m.ResourceVersion)
	}
}
