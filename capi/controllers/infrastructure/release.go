package infrastructure

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

// reconcileDelete lets the SSHMachine go once eggo no longer has its
// node, releasing the host it holds.
//
// While the EggoCluster of its Cluster lists the node in status.nodes
// (eggo joined it, or a run left part of it installed), the machine
// keeps its finalizer and its host stays claimed, in phase Cleaning: the
// control plane no longer renders the node, and eggo drains and removes
// it, deleting exactly the files it recorded. Once status.nodes no
// longer lists it, or the EggoCluster is gone (the cluster was
// destroyed), the claim is cleared and the host is Available again. A
// machine whose node eggo never recorded (never provisioned, or no
// EggoCluster) releases its host at once, unless a Job runs that may be
// installing onto it.
func (r *SSHMachineReconciler) reconcileDelete(ctx context.Context, m *infrav1.SSHMachine, cluster string) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(m, Finalizer) {
		return ctrl.Result{}, nil
	}
	host, err := r.chosenHost(ctx, m)
	if err != nil {
		return ctrl.Result{}, err
	}
	ours := host != nil && host.Spec.ClaimRef != nil && host.Spec.ClaimRef.MachineUID == string(m.UID)
	if cluster == "" && ours {
		cluster = host.Spec.ClaimRef.ClusterName
	}
	ec, err := r.eggoCluster(ctx, m.Namespace, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	state, listed := nodeState(ec, nodeName(m))
	if !listed && ours && m.Spec.ProviderID != "" && ec != nil && ec.Status.ActiveJob != "" {
		// A Job runs that may be installing onto the host: its node is
		// in eggo's state once it ends, or never was.
		state, listed = "a Job ("+ec.Status.ActiveJob+") runs", true
	}
	if listed {
		if !ours {
			host = nil // another's (or no) claim: never marked
		}
		return r.waitForRemoval(ctx, m, host, cluster, state)
	}
	if host != nil {
		why := "node " + nodeName(m) + " was never in eggo's state"
		if provisioned(m) || host.Status.Phase == infrav1.SSHHostCleaning {
			why = "eggo removed node " + nodeName(m)
			if ec == nil {
				why = "the EggoCluster " + cluster + " is gone"
			}
		}
		if res, err := r.release(ctx, m, host, why); err != nil || !res.IsZero() {
			return res, err
		}
	}
	controllerutil.RemoveFinalizer(m, Finalizer)
	if err := r.Client.Update(ctx, m); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

// chosenHost is, live, the host m's annotation names; nil if none.
func (r *SSHMachineReconciler) chosenHost(ctx context.Context, m *infrav1.SSHMachine) (*infrav1.SSHHost, error) {
	name := m.Annotations[infrav1.HostAnnotation]
	if name == "" {
		return nil, nil
	}
	host := &infrav1.SSHHost{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: name}, host)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return host, nil
}

// waitForRemoval keeps m (and the host it holds, when not nil) while
// eggo's state has its node: the host shows Cleaning, m Ready=False.
func (r *SSHMachineReconciler) waitForRemoval(ctx context.Context, m *infrav1.SSHMachine, host *infrav1.SSHHost, cluster, state string) (ctrl.Result, error) {
	msg := fmt.Sprintf("waiting for eggo to remove node %s (%s) from the EggoCluster %s", nodeName(m), state, cluster)
	if host != nil && host.Status.Phase != infrav1.SSHHostCleaning && host.Status.Phase != infrav1.SSHHostNeedsCleanup {
		host.Status.Phase = infrav1.SSHHostCleaning
		paused.Set(&host.Status.Conditions, metav1.Condition{Type: infrav1.SSHHostCleanCondition,
			Status: metav1.ConditionFalse, Reason: WaitingForNodeRemovalReason, ObservedGeneration: host.Generation,
			Message: msg})
		if err := r.Client.Status().Update(ctx, host); err != nil {
			return requeueOnConflict(err)
		}
		ctrl.LoggerFrom(ctx).Info("waiting for eggo to remove the node before releasing the host", "host", host.Name, "node", nodeName(m))
	}
	res, err := r.status(ctx, m, nil, notReady(WaitingForNodeRemovalReason, msg))
	if err != nil || !res.IsZero() {
		return res, err
	}
	return ctrl.Result{RequeueAfter: removalRetry}, nil
}

// release clears m's claim on host (only m's claim is ever cleared) and
// makes a released host Available again; why says what allowed it. A
// result that is not zero, or an error, means: not yet.
func (r *SSHMachineReconciler) release(ctx context.Context, m *infrav1.SSHMachine, host *infrav1.SSHHost, why string) (ctrl.Result, error) {
	if c := host.Spec.ClaimRef; c != nil && c.MachineUID == string(m.UID) {
		host.Spec.ClaimRef = nil
		if err := r.Client.Update(ctx, host); err != nil {
			return requeueOnConflict(err)
		}
		ctrl.LoggerFrom(ctx).Info("released the host", "host", host.Name, "why", why)
	}
	// Released (now, or by an earlier reconcile that stopped before the
	// phase): Available again. A host in another phase (NeedsCleanup)
	// keeps it.
	if host.Spec.ClaimRef != nil {
		return ctrl.Result{}, nil
	}
	switch host.Status.Phase {
	case infrav1.SSHHostCleaning:
		paused.Set(&host.Status.Conditions, metav1.Condition{Type: infrav1.SSHHostCleanCondition,
			Status: metav1.ConditionTrue, Reason: NodeRemovedReason, ObservedGeneration: host.Generation, Message: why})
	case infrav1.SSHHostClaimed, "":
	default:
		return ctrl.Result{}, nil
	}
	host.Status.Phase = infrav1.SSHHostAvailable
	paused.Set(&host.Status.Conditions, metav1.Condition{Type: infrav1.SSHHostClaimedCondition,
		Status: metav1.ConditionFalse, Reason: "Released", ObservedGeneration: host.Generation,
		Message: "released by SSHMachine " + m.Name + ": " + why})
	if err := r.Client.Status().Update(ctx, host); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}
