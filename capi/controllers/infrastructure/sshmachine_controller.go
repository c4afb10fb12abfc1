// Package infrastructure is eggo's Cluster API infrastructure provider:
// the SSHMachine reconciler claims an SSHHost of its pool for its Machine
// (never one another machine holds, whatever runs concurrently), and the
// SSHHost reconciler keeps each host's phase.
package infrastructure

import (
	"context"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/owner"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

// The provider's RBAC (make rbac → config/rbac/infrastructure/role.yaml):
// what the SSHMachine and SSHHost reconcilers and the manager's leader
// election use, nothing more. SSHHosts are updated (the claim), never
// created, patched or deleted.
//
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshmachines,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshmachines/status,verbs=get;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshhosts,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshhosts/status,verbs=get;update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Finalizer keeps an SSHMachine until its host is released.
const Finalizer = "infrastructure.eggo.io/sshmachine"

// Reasons of the SSHMachine's conditions.
const (
	HostClaimedReason          = "HostClaimed"
	NoHostAvailableReason      = "NoHostAvailable"
	WaitingForHostReason       = "WaitingForHost"
	WaitingForBootstrapReason  = "WaitingForBootstrapData"
	WaitingForNodeJoinedReason = "WaitingForNodeJoined"
)

// How soon a reconcile runs again: after losing an optimistic-lock race,
// and while no host is free (a host that frees up also wakes the waiting
// machines through the SSHHost watch; this is the safety net).
const (
	conflictRetry = 200 * time.Millisecond
	noHostRetry   = 30 * time.Second
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

// clusterToSSHMachines are the Cluster's SSHMachines (core labels them).
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

// Reconcile claims a host for the SSHMachine, then sets its providerID;
// on deletion it releases the host.
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
		return r.reconcileDelete(ctx, m)
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

	host, res, err := r.claim(ctx, m, cluster)
	if host == nil || err != nil {
		return res, err
	}
	claimed := metav1.Condition{Type: infrav1.SSHMachineHostClaimedCondition, Status: metav1.ConditionTrue,
		Reason: HostClaimedReason, Message: "claimed SSHHost " + host.Name}
	if host.Status.Phase != infrav1.SSHHostClaimed {
		host.Status.Phase = infrav1.SSHHostClaimed
		paused.Set(&host.Status.Conditions, metav1.Condition{Type: infrav1.SSHHostClaimedCondition,
			Status: metav1.ConditionTrue, Reason: HostClaimedReason, ObservedGeneration: host.Generation,
			Message: fmt.Sprintf("claimed by SSHMachine %s of Cluster %s", m.Name, cluster.Name)})
		if err := r.Client.Status().Update(ctx, host); err != nil {
			return requeueOnConflict(err)
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
	// status.initialization.provisioned stays unset here: it is set once
	// eggo has joined the host's node (the control plane's apply, a later
	// slice), with NodeJoined and Ready.
	addresses := []clusterv1.MachineAddress{
		{Type: clusterv1.MachineInternalIP, Address: host.Spec.Address},
		{Type: clusterv1.MachineHostName, Address: host.Name},
	}
	return r.status(ctx, m, addresses, pc, claimed, notReady(WaitingForNodeJoinedReason, "waiting for eggo to join the node"))
}

// claim returns the host the live API shows held by m, or nil (with what
// to do) while it is not. The steps are those of DESIGN.md: (1) choose a
// host and record the choice on the SSHMachine (the annotation) first;
// (2) claim it by a compare-and-swap Update of its claimRef at the
// resourceVersion read; (3) proceed only once the live host carries m's
// UID. A Conflict retries from a fresh read; a host someone else holds is
// forgotten and the choice starts over.
func (r *SSHMachineReconciler) claim(ctx context.Context, m *infrav1.SSHMachine, cluster *clusterv1.Cluster) (*infrav1.SSHHost, ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	pc := paused.Condition(cluster, m, "SSHMachine")
	name := m.Annotations[infrav1.HostAnnotation]
	if name == "" {
		chosen, err := r.chooseHost(ctx, m)
		if err != nil {
			return nil, ctrl.Result{}, err
		}
		if chosen == "" {
			res, err := r.status(ctx, m, nil, pc,
				metav1.Condition{Type: infrav1.SSHMachineHostClaimedCondition, Status: metav1.ConditionFalse,
					Reason: NoHostAvailableReason, Message: fmt.Sprintf("no Available SSHHost of pool %q matches", m.Spec.HostSelector.Pool)},
				notReady(WaitingForHostReason, "waiting for a free SSHHost"))
			if res.IsZero() && err == nil {
				res.RequeueAfter = noHostRetry
			}
			return nil, res, err
		}
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[infrav1.HostAnnotation] = chosen
		if err := r.Client.Update(ctx, m); err != nil {
			res, err := requeueOnConflict(err)
			return nil, res, err
		}
		name = chosen
		log.V(1).Info("chose a host", "host", name)
	}

	host := &infrav1.SSHHost{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: name}, host); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ctrl.Result{}, r.forget(ctx, m, "the host is gone")
		}
		return nil, ctrl.Result{}, err
	}
	switch c := host.Spec.ClaimRef; {
	case c == nil:
		if !claimable(host, m.Spec.HostSelector) {
			return nil, ctrl.Result{}, r.forget(ctx, m, "the host is no longer claimable")
		}
		host.Spec.ClaimRef = &infrav1.SSHHostClaim{ClusterName: cluster.Name, ClusterUID: string(cluster.UID),
			Purpose: infrav1.ClaimMachine, MachineName: m.Name, MachineUID: string(m.UID)}
		// Update sends the resourceVersion just read: the server refuses
		// it (Conflict) if anyone wrote the host since.
		if err := r.Client.Update(ctx, host); err != nil {
			log.V(1).Info("claim lost a race; reading again", "host", name, "error", err.Error())
			res, err := requeueOnConflict(err)
			return nil, res, err
		}
		log.Info("claimed a host", "host", name)
		// Read it back live: proceed only on what the server holds.
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(host), host); err != nil {
			return nil, ctrl.Result{}, err
		}
		if c := host.Spec.ClaimRef; c == nil || c.MachineUID != string(m.UID) {
			return nil, ctrl.Result{RequeueAfter: conflictRetry}, nil
		}
		return host, ctrl.Result{}, nil
	case c.MachineUID == string(m.UID):
		return host, ctrl.Result{}, nil
	default:
		return nil, ctrl.Result{}, r.forget(ctx, m, "the host is claimed by "+c.ClusterName+"/"+c.MachineName)
	}
}

// chooseHost is the first, by name, of the live SSHHosts of m's namespace
// that its selector matches, unclaimed and Available (or new); "" if none.
func (r *SSHMachineReconciler) chooseHost(ctx context.Context, m *infrav1.SSHMachine) (string, error) {
	hosts := &infrav1.SSHHostList{}
	if err := r.APIReader.List(ctx, hosts, client.InNamespace(m.Namespace),
		client.MatchingLabels(m.Spec.HostSelector.MatchLabels)); err != nil {
		return "", err
	}
	var names []string
	for i := range hosts.Items {
		if claimable(&hosts.Items[i], m.Spec.HostSelector) {
			names = append(names, hosts.Items[i].Name)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	sort.Strings(names)
	return names[0], nil
}

// claimable says whether sel matches h and h is free: no claim, phase
// Available or not set yet, not being deleted.
func claimable(h *infrav1.SSHHost, sel infrav1.HostSelector) bool {
	return h.Spec.ClaimRef == nil && h.DeletionTimestamp.IsZero() &&
		(h.Status.Phase == "" || h.Status.Phase == infrav1.SSHHostAvailable) &&
		h.Spec.Pool == sel.Pool && labels.SelectorFromSet(sel.MatchLabels).Matches(labels.Set(h.Labels))
}

// forget clears m's choice of host, so the next reconcile chooses again.
func (r *SSHMachineReconciler) forget(ctx context.Context, m *infrav1.SSHMachine, why string) error {
	ctrl.LoggerFrom(ctx).Info("forgetting the chosen host", "host", m.Annotations[infrav1.HostAnnotation], "why", why)
	delete(m.Annotations, infrav1.HostAnnotation)
	if err := r.Client.Update(ctx, m); err != nil && !apierrors.IsConflict(err) {
		return err
	}
	return nil // a Conflict: the update event reconciles again
}

// reconcileDelete releases the host the machine holds, then lets the
// SSHMachine go.
//
// Cleaning the host is not done here: the control plane's destroy of the
// node (eggo draining it and removing exactly what it installed) comes in
// a later slice and will run before this release, with the host going
// Cleaning → Available. Until then the host goes straight back to
// Available.
func (r *SSHMachineReconciler) reconcileDelete(ctx context.Context, m *infrav1.SSHMachine) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(m, Finalizer) {
		return ctrl.Result{}, nil
	}
	if name := m.Annotations[infrav1.HostAnnotation]; name != "" {
		host := &infrav1.SSHHost{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: name}, host)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return ctrl.Result{}, err
		default:
			if c := host.Spec.ClaimRef; c != nil && c.MachineUID == string(m.UID) {
				// Only this machine's claim is ever cleared.
				host.Spec.ClaimRef = nil
				if err := r.Client.Update(ctx, host); err != nil {
					return requeueOnConflict(err)
				}
				ctrl.LoggerFrom(ctx).Info("released the host", "host", name)
			}
			// Released (now, or by an earlier reconcile that stopped
			// before the phase): Available again. A host in another phase
			// (NeedsCleanup) keeps it.
			if host.Spec.ClaimRef == nil && (host.Status.Phase == infrav1.SSHHostClaimed || host.Status.Phase == "") {
				host.Status.Phase = infrav1.SSHHostAvailable
				paused.Set(&host.Status.Conditions, metav1.Condition{Type: infrav1.SSHHostClaimedCondition,
					Status: metav1.ConditionFalse, Reason: "Released", ObservedGeneration: host.Generation,
					Message: "released by SSHMachine " + m.Name})
				if err := r.Client.Status().Update(ctx, host); err != nil {
					return requeueOnConflict(err)
				}
			}
		}
	}
	controllerutil.RemoveFinalizer(m, Finalizer)
	if err := r.Client.Update(ctx, m); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

func notReady(reason, msg string) metav1.Condition {
	return metav1.Condition{Type: infrav1.ReadyCondition, Status: metav1.ConditionFalse, Reason: reason, Message: msg}
}

// status writes conditions (each at m's generation) and, when not nil,
// addresses, if that changes anything.
func (r *SSHMachineReconciler) status(ctx context.Context, m *infrav1.SSHMachine, addresses []clusterv1.MachineAddress, conds ...metav1.Condition) (ctrl.Result, error) {
	changed := false
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
