package controller

import (
	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

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
