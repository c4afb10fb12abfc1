package controlplane

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Reasons of the conditions observe sets.
const (
	AvailableReason        = "Available"
	NotInitializedReason   = "NotInitialized"
	UpToDateReason         = "UpToDate"
	NotUpToDateReason      = "NotUpToDate"
	ReadyReason            = "Ready"
	NotReadyReason         = "NotReady"
	NotApplyingReason      = "NotApplying"
	appliedStatePrefix     = "Applied"
	noEggoClusterYetReason = "NoEggoCluster"
)

// applied says whether eggo's state holds every resource of node (the
// Jobs publish "Applied (n resources)" per node after each run).
func applied(ec *eggov1.EggoCluster, node string) bool {
	for _, n := range ec.Status.Nodes {
		if n.Name == node {
			return strings.HasPrefix(n.State, appliedStatePrefix)
		}
	}
	return false
}

// current says whether ec's spec as written was applied (or planned no
// change) and nothing failed since: then every applied node runs what the
// control plane's spec says, its version included.
func current(ec *eggov1.EggoCluster) bool {
	return ec.Status.ObservedGeneration == ec.Generation &&
		meta.IsStatusConditionTrue(ec.Status.Conditions, eggov1.ConditionReady)
}

// observe copies what eggo did into the control plane's status: the
// replica counts, versions, initialization and the contract's conditions;
// and into each of its Machines' UpToDate condition (uptodate.go).
// machines are the control plane's; ec is nil before the first write.
func (r *Reconciler) observe(ctx context.Context, cp *cpv1.EggoControlPlane, ec *eggov1.EggoCluster, machines []clusterv1.Machine) error {
	if ec == nil {
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionFalse, noEggoClusterYetReason, "no control-plane Machine is ready for eggo yet")
		_, err := r.reconcileUpToDate(ctx, cp, nil, machines)
		return err
	}
	isCurrent := current(ec)
	var ready int32
	for i := range machines {
		m := &machines[i]
		if !applied(ec, m.Name) {
			continue
		}
		ready++
		if isCurrent && m.Spec.Version != cp.Spec.Version {
			// An in-place roll done: the Machine says what its node runs.
			if err := r.setMachineVersion(ctx, m, cp.Spec.Version); err != nil {
				return err
			}
		}
	}
	// Counted after the versions are recorded: machineUpToDate compares
	// them. A failed condition patch does not keep the counts from the
	// status; the pass returns it once they are set.
	upToDate, patchErr := r.reconcileUpToDate(ctx, cp, ec, machines)
	cp.Status.ReadyReplicas, cp.Status.AvailableReplicas, cp.Status.UpToDateReplicas = &ready, &ready, &upToDate
	if isCurrent && ready > 0 {
		cp.Status.Version = cp.Spec.Version
		cp.Status.Versions = []clusterv1.StatusVersion{{Version: cp.Spec.Version, Replicas: ready}}
	}
	if ec.Status.LastAppliedPlanHash != "" && ready > 0 {
		yes := true
		cp.Status.Initialization.ControlPlaneInitialized = &yes
		cp.Status.LastAppliedPlanHash = ec.Status.LastAppliedPlanHash
	}
	observeConditions(cp, ec, int32(len(machines)), ready, upToDate)
	return patchErr
}

// observeConditions sets Available, MachinesReady, MachinesUpToDate,
// RollingOut and Applying from ec and the counts.
func observeConditions(cp *cpv1.EggoControlPlane, ec *eggov1.EggoCluster, replicas, ready, upToDate int32) {
	initialized := cp.Status.Initialization.ControlPlaneInitialized != nil && *cp.Status.Initialization.ControlPlaneInitialized
	failed := meta.FindStatusCondition(ec.Status.Conditions, eggov1.ConditionFailed)
	switch {
	case !initialized:
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionFalse, NotInitializedReason, "eggo has not applied a control plane yet")
	case failed != nil && failed.Status == metav1.ConditionTrue && ready == 0:
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionFalse, failed.Reason, failed.Message)
	default:
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionTrue, AvailableReason, "")
	}
	counted := func(typ string, n int32, yes, no string) {
		if n == replicas {
			setCondition(cp, typ, metav1.ConditionTrue, yes, "")
			return
		}
		setCondition(cp, typ, metav1.ConditionFalse, no, fmt.Sprintf("%d of %d control-plane Machines", n, replicas))
	}
	counted(cpv1.MachinesReadyCondition, ready, ReadyReason, NotReadyReason)
	counted(cpv1.MachinesUpToDateCondition, upToDate, UpToDateReason, NotUpToDateReason)
	if upToDate < replicas && initialized {
		setCondition(cp, cpv1.RollingOutCondition, metav1.ConditionTrue, NotUpToDateReason,
			fmt.Sprintf("%d of %d control-plane Machines wait for eggo's apply", replicas-upToDate, replicas))
	} else {
		setCondition(cp, cpv1.RollingOutCondition, metav1.ConditionFalse, UpToDateReason, "")
	}
	if a := meta.FindStatusCondition(ec.Status.Conditions, eggov1.ConditionApplying); a != nil {
		setCondition(cp, cpv1.ApplyingCondition, a.Status, a.Reason, a.Message)
	} else {
		setCondition(cp, cpv1.ApplyingCondition, metav1.ConditionFalse, NotApplyingReason, "")
	}
}

// setMachineVersion records on a control-plane Machine the version eggo
// rolled its node to in place (core's Machine webhook lets it change).
func (r *Reconciler) setMachineVersion(ctx context.Context, m *clusterv1.Machine, version string) error {
	patch := client.MergeFrom(m.DeepCopy())
	m.Spec.Version = version
	if err := r.Patch(ctx, m, patch); err != nil {
		return fmt.Errorf("recording version %s on Machine %s: %w", version, m.Name, err)
	}
	return nil
}
