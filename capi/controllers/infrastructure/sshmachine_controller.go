// Package infrastructure is eggo's Cluster API infrastructure provider:
// the SSHCluster reconciler provides the control plane's endpoint (given,
// or served by a host it claims: eggo's load balancer, or the first
// master's host); the SSHMachine reconciler claims an SSHHost of its pool for its Machine
// (never one another machine holds, whatever runs concurrently), learns
// from the EggoCluster when eggo joined its node and, on deletion, keeps
// the host until eggo removed the node; the SSHHost reconciler keeps each
// host's phase.
package infrastructure

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/owner"
	"github.com/eggo-project/eggo/capi/internal/paused"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The provider's RBAC (make rbac → config/rbac/infrastructure/role.yaml):
// what the SSHMachine and SSHHost reconcilers and the manager's leader
// election use (the SSHCluster reconciler's own are in
// sshcluster_controller.go), nothing more. SSHHosts are updated (the claim), never
// created, patched or deleted. EggoClusters are only read (the nodes
// eggo has in its state).
//
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshmachines,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshmachines/status,verbs=get;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshhosts,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshhosts/status,verbs=get;update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Finalizer keeps an SSHMachine until its host is released.
const Finalizer = "infrastructure.eggo.io/sshmachine"

// Reasons of the SSHMachine's conditions.
const (
	HostClaimedReason     = "HostClaimed"
	NoHostAvailableReason = "NoHostAvailable"
	// WaitingForEndpointHostReason: a control-plane machine waits for
	// its SSHCluster to reserve the endpoint host it is to take.
	WaitingForEndpointHostReason = "WaitingForEndpointHost"
	WaitingForHostReason         = "WaitingForHost"
	WaitingForBootstrapReason    = "WaitingForBootstrapData"
	WaitingForNodeJoinedReason   = "WaitingForNodeJoined"
	NodeJoinedReason             = "NodeJoined"
	// WaitingForNodeRemovalReason: a deleted machine (Ready) and its
	// host (Clean) wait for eggo to remove the node.
	WaitingForNodeRemovalReason = "WaitingForNodeRemoval"
	// NodeRemovedReason: the host's Clean condition once eggo removed
	// the node (or destroyed the cluster).
	NodeRemovedReason = "NodeRemoved"
)

// How soon a reconcile runs again: after losing an optimistic-lock race,
// and while no host is free (a host that frees up also wakes the waiting
// machines through the SSHHost watch; this is the safety net), and
// while a deleted machine waits for eggo to remove its node (the
// EggoCluster watch wakes it too).
const (
	conflictRetry = 200 * time.Millisecond
	noHostRetry   = 30 * time.Second
	removalRetry  = 15 * time.Second
)

// ProviderID is eggo://<namespace>/<host>/<sshmachine-uid>: unique to one
// claim of one host, so no Node of an earlier claim ever matches it.
func ProviderID(m *infrav1.SSHMachine, host string) string {
	return fmt.Sprintf("eggo://%s/%s/%s", m.Namespace, host, m.UID)
}

// SSHMachineReconciler reconciles SSHMachines.
type SSHMachineReconciler struct {
	// Client is the manager's: cached reads of Machines and Clusters
	// (and of SSHMachines to map events), and every write.
	Client client.Client
	// APIReader reads SSHMachines and SSHHosts from the API server: a
	// claim is never decided on a cache's view.
	APIReader client.Reader
}

// SetupWithManager registers the reconciler; opts may be empty.
func (r *SSHMachineReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&infrav1.SSHMachine{}).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(machineToSSHMachine)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToSSHMachines)).
		Watches(&infrav1.SSHHost{}, handler.EnqueueRequestsFromMapFunc(r.hostToSSHMachines)).
		// An EggoCluster is named after its Cluster: a change of the
		// nodes eggo has wakes the Cluster's SSHMachines.
		Watches(&eggov1.EggoCluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToSSHMachines),
			builder.WithPredicates(nodesChanged)).
		WithOptions(opts).
		Named("sshmachine").
		Complete(r)
}

// machineToSSHMachine is the SSHMachine a Machine's infrastructureRef names.
func machineToSSHMachine(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	ref := m.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "SSHMachine" || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}}}
}

// clusterToSSHMachines are the SSHMachines of the Cluster o is, or of
// the Cluster o (an EggoCluster) is named after: core labels them.
func (r *SSHMachineReconciler) clusterToSSHMachines(ctx context.Context, o client.Object) []reconcile.Request {
	return r.sshMachines(ctx, o.GetNamespace(), func(m *infrav1.SSHMachine) bool {
		return m.Labels[clusterv1.ClusterNameLabel] == o.GetName()
	})
}

// hostToSSHMachines are, for a host that changed, the machine its claim
// names and every machine of its namespace still choosing a host: a host
// released or made Available may be theirs now.
func (r *SSHMachineReconciler) hostToSSHMachines(ctx context.Context, o client.Object) []reconcile.Request {
	h, ok := o.(*infrav1.SSHHost)
	if !ok {
		return nil
	}
	return r.sshMachines(ctx, h.Namespace, func(m *infrav1.SSHMachine) bool {
		if c := h.Spec.ClaimRef; c != nil && c.MachineName == m.Name {
			return true
		}
		return m.Annotations[infrav1.HostAnnotation] == "" || m.Annotations[infrav1.HostAnnotation] == h.Name
	})
}

func (r *SSHMachineReconciler) sshMachines(ctx context.Context, ns string, keep func(*infrav1.SSHMachine) bool) []reconcile.Request {
	list := &infrav1.SSHMachineList{}
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

// Reconcile claims a host for the SSHMachine, then sets its providerID,
// then provisioned once eggo joined its node; on deletion it releases the
// host once eggo removed the node.
func (r *SSHMachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := &infrav1.SSHMachine{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	machine, err := owner.Machine(ctx, r.Client, m)
	if err != nil {
		return ctrl.Result{}, err
	}
	var cluster *clusterv1.Cluster
	if machine != nil {
		if cluster, err = owner.Cluster(ctx, r.Client, machine); err != nil {
			return ctrl.Result{}, err
		}
	}
	pc := paused.Condition(cluster, m, "SSHMachine")
	if pc.Status == metav1.ConditionTrue {
		// Paused: say so, and do nothing else (not even a release).
		return r.status(ctx, m, nil, pc)
	}
	if !m.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, m, clusterName(m, cluster))
	}
	if !controllerutil.ContainsFinalizer(m, Finalizer) {
		controllerutil.AddFinalizer(m, Finalizer)
		if err := r.Client.Update(ctx, m); err != nil {
			return requeueOnConflict(err)
		}
	}
	if machine == nil || cluster == nil {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting for the Machine owner and its Cluster", "machine", owner.MachineName(m))
		return r.status(ctx, m, nil, pc)
	}

	// How the EggoCluster is deleted is recorded while it can be seen:
	// the control plane deletes its Machines only once it is gone.
	if _, res, err := r.noteEggoCluster(ctx, m, cluster.Name); err != nil || !res.IsZero() {
		return res, err
	}
	_, cp := machine.Labels[clusterv1.MachineControlPlaneLabel]
	host, res, err := r.claim(ctx, m, cluster, cp)
	if host == nil || err != nil {
		return res, err
	}
	claimed := metav1.Condition{Type: infrav1.SSHMachineHostClaimedCondition, Status: metav1.ConditionTrue,
		Reason: HostClaimedReason, Message: "claimed SSHHost " + host.Name}
	if host.Status.Phase != infrav1.SSHHostClaimed {
		if res, err := setPhase(ctx, r.Client, host, infrav1.SSHHostClaimed, metav1.Condition{Type: infrav1.SSHHostClaimedCondition,
			Status: metav1.ConditionTrue, Reason: HostClaimedReason,
			Message: fmt.Sprintf("claimed by SSHMachine %s of Cluster %s", m.Name, cluster.Name)}); err != nil || !res.IsZero() {
			return res, err
		}
	}
	// As the contract's InfraMachine: wait for the bootstrap data before
	// the providerID.
	if machine.Spec.Bootstrap.DataSecretName == nil {
		return r.status(ctx, m, nil, pc, claimed, notReady(WaitingForBootstrapReason, "waiting for the Machine's bootstrap data secret"))
	}
	if m.Spec.ProviderID == "" {
		m.Spec.ProviderID = ProviderID(m, host.Name)
		if err := r.Client.Update(ctx, m); err != nil {
			return requeueOnConflict(err)
		}
	}
	addresses := []clusterv1.MachineAddress{
		{Type: clusterv1.MachineInternalIP, Address: host.Spec.Address},
		{Type: clusterv1.MachineHostName, Address: host.Name},
	}
	return r.reconcileJoin(ctx, m, cluster.Name, addresses, pc, claimed)
}

// reconcileJoin sets status.initialization.provisioned, NodeJoined and
// Ready once eggo applied the machine's node in full; until then Ready
// is False (WaitingForNodeJoined). Provisioned is never unset: a node a
// later run leaves Pending (or drops) keeps it, as the contract wants.
func (r *SSHMachineReconciler) reconcileJoin(ctx context.Context, m *infrav1.SSHMachine, cluster string, addresses []clusterv1.MachineAddress, conds ...metav1.Condition) (ctrl.Result, error) {
	if provisioned(m) {
		return r.status(ctx, m, addresses, conds...)
	}
	joined, nodeJoined, err := r.joined(ctx, m, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !joined {
		return r.status(ctx, m, addresses, append(conds, nodeJoined,
			notReady(WaitingForNodeJoinedReason, "waiting for eggo to join the node: "+nodeJoined.Message))...)
	}
	m.Status.Initialization.Provisioned = ptr.To(true)
	ctrl.LoggerFrom(ctx).Info("eggo joined the node: provisioned", "node", nodeName(m))
	return r.writeStatus(ctx, m, true, addresses, append(conds, nodeJoined,
		metav1.Condition{Type: infrav1.ReadyCondition, Status: metav1.ConditionTrue, Reason: NodeJoinedReason,
			Message: nodeJoined.Message})...)
}

func notReady(reason, msg string) metav1.Condition {
	return metav1.Condition{Type: infrav1.ReadyCondition, Status: metav1.ConditionFalse, Reason: reason, Message: msg}
}

// status writes conditions (each at m's generation) and, when not nil,
// addresses, if that changes anything.
func (r *SSHMachineReconciler) status(ctx context.Context, m *infrav1.SSHMachine, addresses []clusterv1.MachineAddress, conds ...metav1.Condition) (ctrl.Result, error) {
	return r.writeStatus(ctx, m, false, addresses, conds...)
}

// writeStatus is status, writing in any case when changed is true.
func (r *SSHMachineReconciler) writeStatus(ctx context.Context, m *infrav1.SSHMachine, changed bool, addresses []clusterv1.MachineAddress, conds ...metav1.Condition) (ctrl.Result, error) {
	for _, c := range conds {
		c.ObservedGeneration = m.Generation
		changed = paused.Set(&m.Status.Conditions, c) || changed
	}
	if addresses != nil && !equalAddresses(m.Status.Addresses, addresses) {
		m.Status.Addresses, changed = addresses, true
	}
	if !changed {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Update(ctx, m); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

func equalAddresses(a, b []clusterv1.MachineAddress) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// requeueOnConflict turns a lost optimistic-lock race into a prompt retry
// (from a fresh read), and returns any other error.
func requeueOnConflict(err error) (ctrl.Result, error) {
	if apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: conflictRetry}, nil
	}
	return ctrl.Result{}, err
}
