package infrastructure

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The SSHCluster reconciler's RBAC, besides the SSHMachine's: SSHClusters
// are updated (finalizer, choice annotation, endpoint), never created,
// patched or deleted.
//
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshclusters,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshclusters/status,verbs=get;update

// ClusterFinalizer keeps an SSHCluster until the host it claimed is
// released.
const ClusterFinalizer = "infrastructure.eggo.io/sshcluster"

// Reasons of the SSHCluster's conditions (besides HostClaimed,
// NoHostAvailable and WaitingForNodeRemoval).
const (
	// EndpointGivenReason: the user set spec.controlPlaneEndpoint.
	EndpointGivenReason = "EndpointGiven"
	// NoEndpointReason: the spec names no endpoint and no host to claim.
	NoEndpointReason = "NoEndpoint"
	// WaitingForMachineReleaseReason: a deleted SSHCluster's endpoint
	// host is released only after the machine on it let it go.
	WaitingForMachineReleaseReason = "WaitingForMachineRelease"
)

// SSHClusterReconciler reconciles SSHClusters, the InfraCluster: it
// provides the control plane's endpoint, given or served by a host it
// claims (eggo's load balancer, or the first master's host), and sets
// status.initialization.provisioned once the endpoint is known.
type SSHClusterReconciler struct {
	// Client is the manager's: cached reads of Clusters (and of
	// SSHClusters to map events), and every write.
	Client client.Client
	// APIReader reads SSHClusters, SSHHosts and EggoClusters from the
	// API server: a claim or a release is never decided on a cache's view.
	APIReader client.Reader
}

// SetupWithManager registers the reconciler; opts may be empty.
func (r *SSHClusterReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&infrav1.SSHCluster{}).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToSSHCluster)).
		Watches(&infrav1.SSHHost{}, handler.EnqueueRequestsFromMapFunc(r.hostToSSHClusters)).
		Watches(&eggov1.EggoCluster{}, handler.EnqueueRequestsFromMapFunc(r.eggoClusterToSSHClusters),
			builder.WithPredicates(nodesChanged)).
		WithOptions(opts).
		Named("sshcluster").
		Complete(r)
}

// clusterToSSHCluster is the SSHCluster a Cluster's infrastructureRef names.
func clusterToSSHCluster(_ context.Context, o client.Object) []reconcile.Request {
	c, ok := o.(*clusterv1.Cluster)
	if !ok {
		return nil
	}
	ref := c.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "SSHCluster" || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}}}
}

// hostToSSHClusters are, for a host that changed, the SSHCluster whose
// claim it holds or that chose it, and every SSHCluster of its namespace
// still choosing a host: a host released or made Available may be theirs
// now.
func (r *SSHClusterReconciler) hostToSSHClusters(ctx context.Context, o client.Object) []reconcile.Request {
	h, ok := o.(*infrav1.SSHHost)
	if !ok {
		return nil
	}
	return r.sshClusters(ctx, h.Namespace, func(sc *infrav1.SSHCluster) bool {
		if ref := ownerCluster(sc); ref != nil && h.Spec.ClaimRef != nil && h.Spec.ClaimRef.ClusterUID == string(ref.UID) {
			return true
		}
		return sc.Annotations[infrav1.HostAnnotation] == "" || sc.Annotations[infrav1.HostAnnotation] == h.Name
	})
}

// eggoClusterToSSHClusters is the SSHCluster of the Cluster an
// EggoCluster is named after.
func (r *SSHClusterReconciler) eggoClusterToSSHClusters(ctx context.Context, o client.Object) []reconcile.Request {
	return r.sshClusters(ctx, o.GetNamespace(), func(sc *infrav1.SSHCluster) bool {
		ref := ownerCluster(sc)
		return ref != nil && ref.Name == o.GetName()
	})
}

func (r *SSHClusterReconciler) sshClusters(ctx context.Context, ns string, keep func(*infrav1.SSHCluster) bool) []reconcile.Request {
	list := &infrav1.SSHClusterList{}
	if err := r.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if keep(&list.Items[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
}

// Reconcile provides the SSHCluster's endpoint (claiming its host first
// when it names one) and then provisioned; on deletion it releases the
// host once eggo no longer uses it.
func (r *SSHClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	sc := &infrav1.SSHCluster{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, sc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cluster, err := r.cluster(ctx, sc)
	if err != nil {
		return ctrl.Result{}, err
	}
	pc := paused.Condition(cluster, sc, "SSHCluster")
	if pc.Status == metav1.ConditionTrue {
		// Paused: say so, and do nothing else (not even a release).
		return r.status(ctx, sc, false, pc)
	}
	if !sc.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, sc)
	}
	if !controllerutil.ContainsFinalizer(sc, ClusterFinalizer) {
		controllerutil.AddFinalizer(sc, ClusterFinalizer)
		if err := r.Client.Update(ctx, sc); err != nil {
			return requeueOnConflict(err)
		}
	}
	if cluster == nil {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting for the Cluster owner")
		return r.status(ctx, sc, false, pc)
	}
	switch {
	case sc.Spec.LoadBalancer != nil:
		return r.reconcileHost(ctx, sc, cluster, infrav1.ClaimLoadBalancer, sc.Spec.LoadBalancer.HostSelector, infrav1.LoadBalancerPort, pc)
	case sc.Spec.ControlPlaneHostSelector != nil:
		return r.reconcileHost(ctx, sc, cluster, infrav1.ClaimControlPlaneEndpoint, *sc.Spec.ControlPlaneHostSelector, apiServerPort, pc)
	case sc.Spec.ControlPlaneEndpoint.Host != "":
		return r.provisioned(ctx, sc, EndpointGivenReason, "the endpoint is given", pc)
	}
	msg := "set spec.controlPlaneEndpoint, loadBalancer or controlPlaneHostSelector"
	return r.status(ctx, sc, false, append(sshClusterNotReady(NoEndpointReason, msg), pc)...)
}

// cluster gets sc's owning Cluster; nil (and no error) while it has none
// or it is not found.
func (r *SSHClusterReconciler) cluster(ctx context.Context, sc *infrav1.SSHCluster) (*clusterv1.Cluster, error) {
	ref := ownerCluster(sc)
	if ref == nil {
		return nil, nil
	}
	c := &clusterv1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: sc.Namespace, Name: ref.Name}, c); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return c, nil
}

// provisioned sets status.initialization.provisioned with EndpointReady
// and Ready True (reason, msg).
func (r *SSHClusterReconciler) provisioned(ctx context.Context, sc *infrav1.SSHCluster, reason, msg string, conds ...metav1.Condition) (ctrl.Result, error) {
	changed := false
	if p := sc.Status.Initialization.Provisioned; p == nil || !*p {
		t := true
		sc.Status.Initialization.Provisioned, changed = &t, true
		ctrl.LoggerFrom(ctx).Info("the endpoint is known: provisioned", "endpoint", sc.Spec.ControlPlaneEndpoint.String())
	}
	return r.status(ctx, sc, changed, append(conds,
		metav1.Condition{Type: infrav1.SSHClusterEndpointReadyCondition, Status: metav1.ConditionTrue, Reason: reason, Message: msg},
		metav1.Condition{Type: infrav1.ReadyCondition, Status: metav1.ConditionTrue, Reason: reason, Message: msg})...)
}

// sshClusterNotReady is EndpointReady and Ready False (reason, msg).
func sshClusterNotReady(reason, msg string) []metav1.Condition {
	return []metav1.Condition{
		{Type: infrav1.SSHClusterEndpointReadyCondition, Status: metav1.ConditionFalse, Reason: reason, Message: msg},
		notReady(reason, msg)}
}

// status writes conditions (each at sc's generation) if that changes
// anything, or in any case when changed is true.
func (r *SSHClusterReconciler) status(ctx context.Context, sc *infrav1.SSHCluster, changed bool, conds ...metav1.Condition) (ctrl.Result, error) {
	for _, c := range conds {
		c.ObservedGeneration = sc.Generation
		changed = paused.Set(&sc.Status.Conditions, c) || changed
	}
	if !changed {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Update(ctx, sc); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

// sshClusterOf says whether an SSHCluster owned by the Cluster of UID
// cluster exists (being deleted or not) in ns, read live.
func sshClusterOf(ctx context.Context, r client.Reader, ns, cluster string) (bool, error) {
	list := &infrav1.SSHClusterList{}
	if err := r.List(ctx, list, client.InNamespace(ns)); err != nil {
		return false, err
	}
	for i := range list.Items {
		if ref := ownerCluster(&list.Items[i]); ref != nil && string(ref.UID) == cluster {
			return true, nil
		}
	}
	return false, nil
}
