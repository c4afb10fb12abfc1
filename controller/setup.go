package controller

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The controller's permissions (make crds writes them to
// controller/config/rbac/role.yaml). Secrets and ServiceAccounts: get
// only, and the controller asks for metadata only (checkSpec: a Secret's
// opt-in, a ServiceAccount's mark; a saved plan's presence): RBAC cannot
// grant metadata alone, but no Secret's value is ever sent to it. The
// Jobs, not the controller, read the keys.
//
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get
// +kubebuilder:rbac:groups="",resources=pods,verbs=list
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update

// SetupWithManager registers the reconciler: it runs on every change of
// an EggoCluster (its spec, and the annotations, which do not change the
// generation), of the Jobs it owns, and of a ConfigMap an EggoCluster
// references (an edit there makes a new plan). ConfigMaps are watched for
// their metadata only: the cache holds no configuration, and the
// reconciler reads the one referenced past it. One reconcile at a time
// per EggoCluster, as controller-runtime's queue guarantees.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.EggoCluster{}).
		Owns(&batchv1.Job{}).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.clustersReferencing), builder.OnlyMetadata).
		Complete(r)
}

// clustersReferencing maps a ConfigMap to the EggoClusters of its
// namespace whose configuration it holds.
func (r *Reconciler) clustersReferencing(ctx context.Context, cm client.Object) []reconcile.Request {
	var list v1alpha1.EggoClusterList
	if err := r.List(ctx, &list, client.InNamespace(cm.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, c := range list.Items {
		if ref := c.Spec.Config.ConfigMapRef; ref != nil && ref.Name == cm.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
		}
	}
	return out
}
