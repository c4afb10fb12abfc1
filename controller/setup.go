package controller

import (
	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The controller's permissions (make crds writes them to
// controller/config/rbac/role.yaml). Secrets: get only, to check that the
// referenced ones exist and are of the right type, and that a plan's
// saved plan is there; the Jobs, not the controller, read their contents.
//
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;create;update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups="",resources=pods,verbs=list
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update

// SetupWithManager registers the reconciler: it runs on every change of
// an EggoCluster (its spec, and the approval annotation, which does not
// change the generation) and of the Jobs it owns. One reconcile at a time
// per EggoCluster, as controller-runtime's queue guarantees.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.EggoCluster{}).
		Owns(&batchv1.Job{}).
		Complete(r)
}
