package infrastructure

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
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
	host, err := chosenHost(ctx, r.APIReader, m)
	if err != nil {
		return ctrl.Result{}, err
	}
	ours := host != nil && host.Spec.ClaimRef != nil && host.Spec.ClaimRef.MachineUID == string(m.UID)
	if cluster == "" && ours {
		cluster = host.Spec.ClaimRef.ClusterName
	}
	ec, err := eggoCluster(ctx, r.APIReader, m.Namespace, cluster)
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

// waitForRemoval keeps m (and the host it holds, when not nil) while
// eggo's state has its node: the host shows Cleaning, m Ready=False.
func (r *SSHMachineReconciler) waitForRemoval(ctx context.Context, m *infrav1.SSHMachine, host *infrav1.SSHHost, cluster, state string) (ctrl.Result, error) {
	msg := fmt.Sprintf("waiting for eggo to remove node %s (%s) from the EggoCluster %s", nodeName(m), state, cluster)
	if host != nil {
		if res, err := markCleaning(ctx, r.Client, host, msg); err != nil || !res.IsZero() {
			return res, err
		}
	}
	res, err := r.status(ctx, m, nil, notReady(WaitingForNodeRemovalReason, msg))
	if err != nil || !res.IsZero() {
		return res, err
	}
	return ctrl.Result{RequeueAfter: removalRetry}, nil
}

// release clears m's claim on host (only m's claim is ever cleared) and
// makes a released host Available again; why says what allowed it. The
// endpoint host an SSHCluster reserved (purpose ControlPlaneEndpoint)
// stays its SSHCluster's while that exists: m unsets only machineName
// and machineUID, and the host, clean, is Claimed again, for the next
// master; once the SSHCluster is gone, m clears the claim. A result that
// is not zero, or an error, means: not yet.
func (r *SSHMachineReconciler) release(ctx context.Context, m *infrav1.SSHMachine, host *infrav1.SSHHost, why string) (ctrl.Result, error) {
	if c := host.Spec.ClaimRef; c != nil && c.MachineUID == string(m.UID) {
		kept := false
		if c.Purpose == infrav1.ClaimControlPlaneEndpoint {
			var err error
			if kept, err = sshClusterOf(ctx, r.APIReader, host.Namespace, c.ClusterUID); err != nil {
				return ctrl.Result{}, err
			}
		}
		if kept {
			c.MachineName, c.MachineUID = "", ""
		} else {
			host.Spec.ClaimRef = nil
		}
		if err := r.Client.Update(ctx, host); err != nil {
			return requeueOnConflict(err)
		}
		ctrl.LoggerFrom(ctx).Info("released the host", "host", host.Name, "why", why, "keptForSSHCluster", kept)
	}
	if c := host.Spec.ClaimRef; c != nil && reservation(c, c.ClusterUID) && host.Status.Phase == infrav1.SSHHostCleaning {
		return setPhase(ctx, r.Client, host, infrav1.SSHHostClaimed,
			metav1.Condition{Type: infrav1.SSHHostCleanCondition, Status: metav1.ConditionTrue, Reason: NodeRemovedReason, Message: why},
			metav1.Condition{Type: infrav1.SSHHostClaimedCondition, Status: metav1.ConditionTrue, Reason: HostClaimedReason,
				Message: "reserved by the SSHCluster of Cluster " + c.ClusterName + ", released by SSHMachine " + m.Name})
	}
	return makeAvailable(ctx, r.Client, host, "SSHMachine "+m.Name, why)
}
