package controlplane

import (
	"context"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// The control plane renders every Machine of its Cluster, workers
// included, and the host of its load balancer: a change of any of them
// (a MachineDeployment's new Machine, its SSHMachine's providerID, a host
// claimed) wakes the control plane of that Cluster, found through the
// Cluster's controlPlaneRef.

// controlPlaneOf is the request for the EggoControlPlane of the Cluster
// ns/name, none when the Cluster has another kind of control plane.
func (r *Reconciler) controlPlaneOf(ctx context.Context, ns, name string) []reconcile.Request {
	if name == "" {
		return nil
	}
	var cl clusterv1.Cluster
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cl); err != nil {
		return nil
	}
	ref := cl.Spec.ControlPlaneRef
	if ref.APIGroup != cpv1.GroupVersion.Group || ref.Kind != "EggoControlPlane" || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: ref.Name}}}
}

// byClusterLabel maps a Machine or an SSHMachine (core labels both with
// their Cluster's name) to its Cluster's control plane.
func (r *Reconciler) byClusterLabel(ctx context.Context, o client.Object) []reconcile.Request {
	return r.controlPlaneOf(ctx, o.GetNamespace(), o.GetLabels()[clusterv1.ClusterNameLabel])
}

// byHostClaim maps an SSHHost to the control plane of the Cluster that
// claims it.
func (r *Reconciler) byHostClaim(ctx context.Context, o client.Object) []reconcile.Request {
	h, ok := o.(*infrav1.SSHHost)
	if !ok || h.Spec.ClaimRef == nil {
		return nil
	}
	return r.controlPlaneOf(ctx, h.Namespace, h.Spec.ClaimRef.ClusterName)
}
