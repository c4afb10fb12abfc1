// Package bootstrap is eggo's Cluster API bootstrap provider: the
// EggoConfig reconciler writes each Machine's bootstrap data Secret (the
// node eggo-capi's control plane renders into the cluster's HCL: name,
// roles, version, labels, taints; never a script run on a host, never key
// material) and reports it as the v1beta2 BootstrapConfig contract asks.
package bootstrap

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/owner"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

// The provider's RBAC (make rbac → config/rbac/bootstrap/role.yaml): what
// this reconciler and the manager's leader election use, nothing more.
// Secrets are only read (uncached, by name) and created: eggo-capi never
// lists or watches them. eggoconfigs/finalizers: the Secret's controller
// reference blocks its owner's deletion.
//
// +kubebuilder:rbac:groups=bootstrap.eggo.io,resources=eggoconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups=bootstrap.eggo.io,resources=eggoconfigs/status,verbs=get;update
// +kubebuilder:rbac:groups=bootstrap.eggo.io,resources=eggoconfigs/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines;clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Kind and APIVersion of the bootstrap data.
const (
	NodeDataKind       = "EggoNode"
	NodeDataAPIVersion = "bootstrap.eggo.io/v1alpha1"
	// DataKey is the Secret's single key, as the contract names it.
	DataKey = "value"
	// UninitializedTaint is the contract's optional taint, removed by
	// core once it synced the Machine's labels onto the Node.
	UninitializedTaint = "node.cluster.x-k8s.io/uninitialized:NoSchedule"
)

// Reasons of the Ready condition.
const (
	DataSecretAvailableReason = "DataSecretAvailable"
	DataSecretNotOwnedReason  = "DataSecretNotOwned"
)

// NodeData is the bootstrap data of one Machine (the Secret's "value", as
// JSON): what eggo's control plane makes of the node.
type NodeData struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	// Name is the Machine's name (the node's in eggo's HCL).
	Name string `json:"name"`
	// Roles are ["master","etcd"] for a control-plane Machine (label
	// cluster.x-k8s.io/control-plane), else ["worker"].
	Roles []string `json:"roles"`
	// KubernetesVersion is the Machine's spec.version.
	KubernetesVersion string `json:"kubernetesVersion"`
	// Labels are the EggoConfig's spec.nodeLabels.
	Labels map[string]string `json:"labels"`
	// Taints are the EggoConfig's, as "key=value:Effect" ("key:Effect"
	// without a value), the uninitialized taint last when asked for.
	Taints []string `json:"taints"`
}

// NewNodeData is the bootstrap data of machine with cfg.
func NewNodeData(machine *clusterv1.Machine, cfg *bootstrapv1.EggoConfig) NodeData {
	d := NodeData{Kind: NodeDataKind, APIVersion: NodeDataAPIVersion, Name: machine.Name,
		Roles: []string{"worker"}, KubernetesVersion: machine.Spec.Version,
		Labels: map[string]string{}, Taints: []string{}}
	if _, ok := machine.Labels[clusterv1.MachineControlPlaneLabel]; ok {
		d.Roles = []string{"master", "etcd"}
	}
	for k, v := range cfg.Spec.NodeLabels {
		d.Labels[k] = v
	}
	for _, t := range cfg.Spec.Taints {
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		d.Taints = append(d.Taints, s+":"+string(t.Effect))
	}
	if cfg.Spec.UninitializedTaint {
		d.Taints = append(d.Taints, UninitializedTaint)
	}
	return d
}

// EggoConfigReconciler reconciles EggoConfigs.
type EggoConfigReconciler struct {
	// Client is the manager's (cached reads of EggoConfigs, Machines and
	// Clusters; writes).
	Client client.Client
	// APIReader reads Secrets from the API server (never cached).
	APIReader client.Reader
}

// SetupWithManager registers the reconciler; opts may be empty.
func (r *EggoConfigReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&bootstrapv1.EggoConfig{}).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(machineToConfig)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.clusterToConfigs)).
		WithOptions(opts).
		Named("eggoconfig").
		Complete(r)
}

// machineToConfig is the EggoConfig a Machine's bootstrap refers to.
func machineToConfig(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	ref := m.Spec.Bootstrap.ConfigRef
	if ref.APIGroup != bootstrapv1.GroupVersion.Group || ref.Kind != "EggoConfig" || ref.Name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}}}
}

// clusterToConfigs are the EggoConfigs labelled with the Cluster's name
// (core labels them): a Cluster that appears or is unpaused wakes them.
func (r *EggoConfigReconciler) clusterToConfigs(ctx context.Context, o client.Object) []reconcile.Request {
	list := &bootstrapv1.EggoConfigList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace()),
		client.MatchingLabels{clusterv1.ClusterNameLabel: o.GetName()}); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, c := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
	}
	return reqs
}

// conflictRetry is how soon a reconcile that lost an optimistic-lock race
// runs again.
const conflictRetry = 200 * time.Millisecond

// Reconcile writes the data Secret of an EggoConfig whose Machine and
// Cluster exist, once, then its status.
func (r *EggoConfigReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	cfg := &bootstrapv1.EggoConfig{}
	if err := r.Client.Get(ctx, req.NamespacedName, cfg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cfg.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the Secret goes with it (its owner reference)
	}
	machine, err := owner.Machine(ctx, r.Client, cfg)
	if err != nil {
		return ctrl.Result{}, err
	}
	var cluster *clusterv1.Cluster
	if machine != nil {
		if cluster, err = owner.Cluster(ctx, r.Client, machine); err != nil {
			return ctrl.Result{}, err
		}
	}
	pc := paused.Condition(cluster, cfg, "EggoConfig")
	if pc.Status == metav1.ConditionTrue {
		// Paused: say so, and do nothing else.
		if paused.Set(&cfg.Status.Conditions, pc) {
			return r.updateStatus(ctx, cfg)
		}
		return ctrl.Result{}, nil
	}
	if machine == nil || cluster == nil {
		log.V(1).Info("waiting for the Machine owner and its Cluster", "machine", owner.MachineName(cfg))
		return ctrl.Result{}, nil
	}
	statusChanged := paused.Set(&cfg.Status.Conditions, pc)

	secret, err := r.ensureSecret(ctx, cfg, machine, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !metav1.IsControlledBy(secret, cfg) {
		// Never take over (nor overwrite) a Secret someone else made.
		statusChanged = paused.Set(&cfg.Status.Conditions, metav1.Condition{Type: bootstrapv1.ReadyCondition,
			Status: metav1.ConditionFalse, Reason: DataSecretNotOwnedReason, ObservedGeneration: cfg.Generation,
			Message: fmt.Sprintf("Secret %s exists and is not controlled by this EggoConfig", secret.Name)}) || statusChanged
		if statusChanged {
			return r.updateStatus(ctx, cfg)
		}
		return ctrl.Result{}, nil
	}
	if ptr.Deref(cfg.Status.DataSecretName, "") != secret.Name {
		cfg.Status.DataSecretName, statusChanged = ptr.To(secret.Name), true
	}
	if !ptr.Deref(cfg.Status.Initialization.DataSecretCreated, false) {
		cfg.Status.Initialization.DataSecretCreated, statusChanged = ptr.To(true), true
	}
	statusChanged = paused.Set(&cfg.Status.Conditions, metav1.Condition{Type: bootstrapv1.ReadyCondition,
		Status: metav1.ConditionTrue, Reason: DataSecretAvailableReason, ObservedGeneration: cfg.Generation}) || statusChanged
	if statusChanged {
		return r.updateStatus(ctx, cfg)
	}
	return ctrl.Result{}, nil
}

// ensureSecret returns the data Secret, created if absent. An existing one
// is never rewritten: the bootstrap data of a Machine is fixed at creation.
func (r *EggoConfigReconciler) ensureSecret(ctx context.Context, cfg *bootstrapv1.EggoConfig,
	machine *clusterv1.Machine, cluster *clusterv1.Cluster) (*corev1.Secret, error) {
	key := client.ObjectKey{Namespace: cfg.Namespace, Name: cfg.Name}
	secret := &corev1.Secret{}
	err := r.APIReader.Get(ctx, key, secret)
	if err == nil || !apierrors.IsNotFound(err) {
		return secret, err
	}
	data, err := json.Marshal(NewNodeData(machine, cfg))
	if err != nil {
		return nil, err
	}
	secret = &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name}},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{DataKey: data},
	}
	if err := controllerutil.SetControllerReference(cfg, secret, r.Client.Scheme()); err != nil {
		return nil, err
	}
	if err := r.Client.Create(ctx, secret); err != nil {
		if apierrors.IsAlreadyExists(err) {
			// Made meanwhile (another instance): read what is there.
			return secret, r.APIReader.Get(ctx, key, secret)
		}
		return nil, err
	}
	ctrl.LoggerFrom(ctx).Info("wrote the bootstrap data", "secret", key.Name, "machine", machine.Name)
	return secret, nil
}

func (r *EggoConfigReconciler) updateStatus(ctx context.Context, cfg *bootstrapv1.EggoConfig) (ctrl.Result, error) {
	if err := r.Client.Status().Update(ctx, cfg); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictRetry}, nil
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}
