package infrastructure

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// reconcileDelete lets the SSHMachine go once eggo no longer has its
// node, releasing the host it holds.
//
// While the EggoCluster of its Cluster lists the node in status.nodes
// (eggo joined it, or a run left part of it installed), the machine
// keeps its finalizer and its host stays claimed, in phase Cleaning: the
// control plane no longer renders the node, and eggo drains and removes
// it, deleting exactly the files it recorded. Once status.nodes no
// longer lists it the claim is cleared and the host is Available again.
// Once the EggoCluster is gone, so is its deletion policy: the host is
// Available again only if m recorded, while it could still see it, that
// eggo was destroying it (DeletionAnnotation); else what eggo installed
// is still there and the host goes NeedsCleanup (keepDirty). A machine
// whose node eggo never recorded (never provisioned, or no EggoCluster)
// releases its host at once, unless a Job runs that may be installing
// onto it.
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
	ec, res, err := r.noteEggoCluster(ctx, m, cluster)
	if err != nil || !res.IsZero() {
		return res, err
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
				// Its policy is known only from what m recorded: not
				// seen destroyed, the host (still m's) goes NeedsCleanup
				// before release clears the claim; release keeps it.
				destroyed, what := gone(m, cluster, host.Name)
				if !destroyed && ours {
					if res, err := keepDirty(ctx, r.Client, host, what); err != nil || !res.IsZero() {
						return res, err
					}
				}
				why = what
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

// DeletionAnnotation records on an SSHMachine how it last saw its
// cluster's EggoCluster being deleted: "Destroy/<job>" while eggo's
// destroy Job <job> ran, "Orphan" when deleted with deletionPolicy
// Orphan; it is absent while the EggoCluster is not deleted, or no
// destroy Job runs (one failed). It outlives the EggoCluster, and so
// alone says, once that is gone, whether eggo removed what it installed:
// the GitOps controller drops its finalizer when the destroy Job
// succeeded but also when deletionPolicy is Orphan, and a finalizer an
// admin removes by hand after a failed destroy looks the same.
const DeletionAnnotation = "infrastructure.eggo.io/eggocluster-deletion"

// destroyPrefix starts the DeletionAnnotation of a destroy seen running.
const destroyPrefix = "Destroy/"

// OrphanedReason: the host's Clean condition (False) when the EggoCluster
// went without eggo's destroy: Kubernetes is still installed on it.
const OrphanedReason = "Orphaned"

// ClearedReason: the host's Clean condition once an admin removed the
// phase of a host that needed cleaning (sshhost_controller.go).
const ClearedReason = "Cleared"

// noteEggoCluster reads, live, the EggoCluster of cluster (nil if none)
// and records on m how it is being deleted (DeletionAnnotation); once it
// is gone, the record stands. A result that is not zero, or an error,
// means: not recorded yet.
func (r *SSHMachineReconciler) noteEggoCluster(ctx context.Context, m *infrav1.SSHMachine, cluster string) (*eggov1.EggoCluster, ctrl.Result, error) {
	ec, err := eggoCluster(ctx, r.APIReader, m.Namespace, cluster)
	if err != nil || ec == nil {
		return ec, ctrl.Result{}, err
	}
	seen := ""
	switch {
	case ec.DeletionTimestamp.IsZero():
	case ec.Spec.DeletionPolicy == eggov1.DeletionOrphan:
		seen = string(eggov1.DeletionOrphan)
	case ec.Status.ActiveJobPhase == eggov1.PhaseDestroy && ec.Status.ActiveJob != "":
		seen = destroyPrefix + ec.Status.ActiveJob
	}
	if m.Annotations[DeletionAnnotation] == seen {
		return ec, ctrl.Result{}, nil
	}
	if seen == "" {
		delete(m.Annotations, DeletionAnnotation)
	} else {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[DeletionAnnotation] = seen
	}
	if err := r.Client.Update(ctx, m); err != nil {
		res, err := requeueOnConflict(err)
		return nil, res, err
	}
	ctrl.LoggerFrom(ctx).Info("recorded the EggoCluster's deletion", "eggoCluster", cluster, "seen", seen)
	return ec, ctrl.Result{}, nil
}

// gone says, for m whose node eggo may have installed and whose
// EggoCluster (of cluster) is gone, whether eggo destroyed it (m saw its
// destroy Job run last), and why the host is released, or must be
// cleaned first (and how an admin clears it: the SSHHost controller
// gives a host without a phase its phase again).
func gone(m *infrav1.SSHMachine, cluster, host string) (bool, string) {
	seen := m.Annotations[DeletionAnnotation]
	if job, ok := strings.CutPrefix(seen, destroyPrefix); ok {
		return true, "eggo destroyed the EggoCluster " + cluster + " (job " + job + ")"
	}
	why := "the EggoCluster " + cluster + " is gone and eggo was not seen destroying it (deleted with deletionPolicy Orphan, " +
		"or its finalizer removed after a failed destroy)"
	if seen == string(eggov1.DeletionOrphan) {
		why = "the EggoCluster " + cluster + " was deleted with deletionPolicy Orphan"
	}
	return false, why + ": Kubernetes is still installed on the host. Clean it, then remove status.phase " +
		"(kubectl patch sshhost " + host + " --subresource=status --type=json -p '[{\"op\":\"remove\",\"path\":\"/status/phase\"}]'): " +
		"the SSHHost controller makes it Available again"
}

// keepDirty puts host, still claimed by the machine, in phase
// NeedsCleanup (Clean=False, why) before the claim is released: it is
// never Available in between, and release keeps that phase.
func keepDirty(ctx context.Context, c client.Client, host *infrav1.SSHHost, why string) (ctrl.Result, error) {
	if host.Status.Phase == infrav1.SSHHostNeedsCleanup {
		return ctrl.Result{}, nil
	}
	ctrl.LoggerFrom(ctx).Info("the host keeps what eggo installed: it needs cleaning", "host", host.Name, "why", why)
	return setPhase(ctx, c, host, infrav1.SSHHostNeedsCleanup, metav1.Condition{Type: infrav1.SSHHostCleanCondition,
		Status: metav1.ConditionFalse, Reason: OrphanedReason, Message: why})
}
