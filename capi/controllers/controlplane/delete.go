package controlplane

import (
	"cmp"
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Finalizer keeps an EggoControlPlane until eggo destroyed its cluster and
// its Machines are gone.
const Finalizer = "controlplane.eggo.io/eggocontrolplane"

// Reasons of the Deleting condition.
const (
	DestroyingReason       = "Destroying"
	DeletingMachinesReason = "DeletingMachines"
)

// deletingRequeue is how often a deletion looks again (the EggoCluster's
// destroy Job, the Machines' release).
const deletingRequeue = 15 * time.Second

// ensureFinalizer adds the finalizer to a control plane not being
// deleted.
func (r *Reconciler) ensureFinalizer(ctx context.Context, cp *cpv1.EggoControlPlane) error {
	if controllerutil.ContainsFinalizer(cp, Finalizer) || !cp.DeletionTimestamp.IsZero() {
		return nil
	}
	controllerutil.AddFinalizer(cp, Finalizer)
	return r.Update(ctx, cp)
}

// reconcileDelete takes the cluster down in the order eggo needs: the
// EggoCluster first (its deletion policy is Destroy: the GitOps
// controller's destroy Job drains nothing and removes every node eggo
// made, leaving each host as it was), then the control-plane Machines,
// whose SSHMachines release their hosts once the EggoCluster is gone;
// then the finalizer. cluster is "" when the Cluster is gone already.
func (r *Reconciler) reconcileDelete(ctx context.Context, cp *cpv1.EggoControlPlane, cluster string) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cp, Finalizer) {
		return ctrl.Result{}, nil
	}
	if cluster == "" {
		cluster = cp.Labels[clusterv1.ClusterNameLabel]
	}
	if name := cmp.Or(cp.Status.EggoClusterName, cluster); name != "" {
		var ec eggov1.EggoCluster
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cp.Namespace, Name: name}, &ec)
		switch {
		case err == nil && metav1.IsControlledBy(&ec, cp):
			if ec.DeletionTimestamp.IsZero() {
				if err := r.Delete(ctx, &ec); err != nil && !apierrors.IsNotFound(err) {
					return ctrl.Result{}, err
				}
			}
			setCondition(cp, cpv1.DeletingCondition, metav1.ConditionTrue, DestroyingReason,
				fmt.Sprintf("eggo destroys the cluster (EggoCluster %s)", name))
			return ctrl.Result{RequeueAfter: deletingRequeue}, nil
		case err != nil && !apierrors.IsNotFound(err):
			return ctrl.Result{}, err
		}
	}
	machines, err := r.controlPlaneMachines(ctx, cp, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(machines) > 0 {
		for i := range machines {
			if machines[i].DeletionTimestamp.IsZero() {
				if err := r.Delete(ctx, &machines[i]); err != nil && !apierrors.IsNotFound(err) {
					return ctrl.Result{}, err
				}
			}
		}
		setCondition(cp, cpv1.DeletingCondition, metav1.ConditionTrue, DeletingMachinesReason,
			fmt.Sprintf("%d control-plane Machine(s) to go", len(machines)))
		return ctrl.Result{RequeueAfter: deletingRequeue}, nil
	}
	controllerutil.RemoveFinalizer(cp, Finalizer)
	return ctrl.Result{}, r.Update(ctx, cp)
}
