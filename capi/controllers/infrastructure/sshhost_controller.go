package infrastructure

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

// SSHHostReconciler gives a new SSHHost its phase: Available, or Claimed
// if it came with a claim. The SSHMachine reconciler moves it afterwards.
type SSHHostReconciler struct {
	Client client.Client
}

// SetupWithManager registers the reconciler; opts may be empty.
func (r *SSHHostReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&infrav1.SSHHost{}).
		WithOptions(opts).
		Named("sshhost").
		Complete(r)
}

// Reconcile sets an unset phase (not on a host carrying the paused
// annotation: a host has no Cluster until claimed). A stale cached read only costs a
// Conflict: the update carries the resourceVersion read. A host only
// loses its phase when an admin removes it: of a host that needed
// cleaning (Clean=False, Orphaned) that says it is clean now.
func (r *SSHHostReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	h := &infrav1.SSHHost{}
	if err := r.Client.Get(ctx, req.NamespacedName, h); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if _, paused := h.Annotations[clusterv1.PausedAnnotation]; paused {
		return ctrl.Result{}, nil
	}
	if h.Status.Phase != "" || !h.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	h.Status.Phase = infrav1.SSHHostAvailable
	if h.Spec.ClaimRef != nil {
		h.Status.Phase = infrav1.SSHHostClaimed
	}
	if c := meta.FindStatusCondition(h.Status.Conditions, infrav1.SSHHostCleanCondition); c != nil &&
		c.Status == metav1.ConditionFalse && c.Reason == OrphanedReason {
		paused.Set(&h.Status.Conditions, metav1.Condition{Type: infrav1.SSHHostCleanCondition, Status: metav1.ConditionTrue,
			Reason: ClearedReason, Message: "an admin cleared the phase NeedsCleanup", ObservedGeneration: h.Generation})
	}
	if err := r.Client.Status().Update(ctx, h); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

// Setup registers the infrastructure provider's reconcilers.
func Setup(mgr ctrl.Manager, opts controller.Options) error {
	if err := (&SSHClusterReconciler{}).SetupWithManager(mgr, opts); err != nil {
		return err
	}
	if err := (&SSHMachineReconciler{}).SetupWithManager(mgr, opts); err != nil {
		return err
	}
	return (&SSHHostReconciler{}).SetupWithManager(mgr, opts)
}
