package controlplane

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The control plane's permissions (make rbac writes them to
// config/rbac/controlplane/role.yaml).
//
// +kubebuilder:rbac:groups=controlplane.eggo.io,resources=eggocontrolplanes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=controlplane.eggo.io,resources=eggocontrolplanes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch;create;patch;delete
// The UpToDate condition of its Machines is the control plane's to set (uptodate.go).
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshmachinetemplates;sshhosts,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.eggo.io,resources=sshmachines,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=bootstrap.eggo.io,resources=eggoconfigs,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;create;update
// +kubebuilder:rbac:groups=eggo.io,resources=eggoclusters,verbs=get;list;watch;create;update;patch;delete
// The manager's leader election (its Deployment runs --leader-elect): the
// Lease and the events that record who leads.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconciler keeps an EggoControlPlane's control-plane Machines at its
// replicas and its EggoCluster's configuration at what the cluster's
// ready Machines describe. It reads what decides a write past the cache
// (APIReader), as the host claims are.
type Reconciler struct {
	client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
}

// requeue is how soon a control plane waiting for its machines looks again.
const requeue = 10 * time.Second

// Reconcile runs one pass.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	cp := &cpv1.EggoControlPlane{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, cp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cluster, err := r.owningCluster(ctx, cp)
	if err == nil && cluster == nil && !cp.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, cp, "") // the Cluster went first
	}
	if err != nil || cluster == nil {
		return ctrl.Result{}, err // Cluster API sets the owner: its event comes back here
	}
	// The finalizer first: the update returns the object as stored.
	if err := r.ensureFinalizer(ctx, cp); err != nil {
		return ctrl.Result{}, err
	}
	before := cp.Status.DeepCopy()
	// The status is written whatever the pass ends with; a failed write
	// is the pass's error (it runs again), not lost.
	defer func() {
		if serr := r.saveStatus(ctx, cp, before); serr != nil && err == nil {
			err = fmt.Errorf("writing the status: %w", serr)
		}
	}()
	cp.Status.ObservedGeneration = cp.Generation
	cp.Status.Selector = clusterv1.ClusterNameLabel + "=" + cluster.Name + "," + clusterv1.MachineControlPlaneLabel
	// Paused: no Machine is made and no plan is asked for.
	pause := paused.Condition(cluster, cp, "EggoControlPlane")
	paused.Set(&cp.Status.Conditions, pause)
	if pause.Status == metav1.ConditionTrue {
		return ctrl.Result{}, nil
	}
	if !cp.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, cp, cluster.Name)
	}
	// Another's EggoCluster of the Cluster's name is refused before any
	// Machine is made for a configuration that could not be written.
	ec, err := r.eggoCluster(ctx, cp, cluster)
	if err != nil {
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionFalse, "EggoClusterNotWritten", err.Error())
		return ctrl.Result{}, err
	}
	machines, err := r.scale(ctx, cp, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	got, err := r.collect(ctx, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	setScalingUp(cp, got.waiting)
	ec, res, invalid, err := r.configure(ctx, cp, cluster, ec, got)
	if err != nil || invalid {
		return res, err // said on the conditions
	}
	if ec == nil {
		return res, r.observe(ctx, cp, nil, machines)
	}
	cp.Status.EggoClusterName = ec.Name
	if err := r.approve(ctx, cp, ec, got.planMachines()); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.observe(ctx, cp, ec, machines); err != nil {
		return ctrl.Result{}, err
	}
	return r.keepAccess(ctx, cp, cluster, ec, res)
}

// keepAccess publishes the Cluster's kubeconfig and asks for a plan that
// renews its client certificate once that is due; res comes back with a
// wake-up at the renewal time at the latest.
func (r *Reconciler) keepAccess(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster, ec *eggov1.EggoCluster, res ctrl.Result) (ctrl.Result, error) {
	notAfter, err := r.publishAccess(ctx, cp, cluster, ec)
	if err != nil || notAfter.IsZero() {
		return res, err
	}
	cp.Status.KubeconfigNotAfter = &metav1.Time{Time: notAfter}
	now := time.Now()
	if renewalDue(notAfter, cp.Spec.Kubeconfig, now) {
		if current(ec) {
			return res, r.requestRenewal(ctx, ec, notAfter)
		}
		return res, nil // a plan or an apply is under way: it renews it
	}
	if until := notAfter.Add(-capiClient(cp.Spec.Kubeconfig).RenewBefore).Sub(now); res.RequeueAfter == 0 || until < res.RequeueAfter {
		res.RequeueAfter = until
	}
	return res, nil
}

// configure writes the EggoCluster from the ready Machines, unless
// Machines made together still settle (they join in one plan) or no
// master is ready (eggo could plan nothing): then it asks to look again.
// It returns the EggoCluster as it is (nil while there is none), and
// invalid when the Machines make no valid configuration.
func (r *Reconciler) configure(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster, ec *eggov1.EggoCluster, got collected) (*eggov1.EggoCluster, ctrl.Result, bool, error) {
	if got.settling(time.Now()) || !hasMaster(got.ready) {
		return ec, ctrl.Result{RequeueAfter: requeue}, false, nil
	}
	desired, err := DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, APIEndpoint: endpoint(cluster), Machines: got.ready, HeldKeys: got.heldKeys})
	if err != nil {
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionFalse, "InvalidMachines", err.Error())
		return ec, ctrl.Result{}, true, nil
	}
	if ec, err = r.writeEggoCluster(ctx, cp, ec, desired); err != nil {
		setCondition(cp, cpv1.AvailableCondition, metav1.ConditionFalse, "EggoClusterNotWritten", err.Error())
		return nil, ctrl.Result{}, false, err
	}
	if len(got.waiting) > 0 {
		return ec, ctrl.Result{RequeueAfter: requeue}, false, nil
	}
	return ec, ctrl.Result{}, false, nil
}

// scale creates the control-plane Machines replicas asks for beyond
// those there, all in one pass (machines made together join in one
// plan), or deletes one beyond it: one at a time, each Machine's node
// leaving etcd before the next is asked to, and the newest first, since
// the first master may be the one that serves the endpoint.
func (r *Reconciler) scale(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster) ([]clusterv1.Machine, error) {
	machines, err := r.controlPlaneMachines(ctx, cp, cluster.Name)
	if err != nil {
		return nil, err
	}
	want := int32(1)
	if cp.Spec.Replicas != nil {
		want = *cp.Spec.Replicas
	}
	have := int32(len(machines))
	cp.Status.Replicas = &have
	var live []clusterv1.Machine
	for _, m := range machines {
		if m.DeletionTimestamp.IsZero() {
			live = append(live, m)
		}
	}
	switch n := int32(len(live)); {
	case n < want && len(live) == len(machines):
		for ; n < want; n++ {
			if err := r.createMachine(ctx, cp, cluster); err != nil {
				return nil, err
			}
		}
	case n > want && len(live) == len(machines):
		newest := &live[len(live)-1] // oldest first
		if err := r.Delete(ctx, newest); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("scaling down: deleting Machine %s: %w", newest.Name, err)
		}
		setCondition(cp, cpv1.ScalingDownCondition, metav1.ConditionTrue, "DeletingMachine",
			fmt.Sprintf("Machine %s goes: eggo removes its node", newest.Name))
		return machines, nil
	}
	if len(live) < len(machines) {
		setCondition(cp, cpv1.ScalingDownCondition, metav1.ConditionTrue, "WaitingForMachineRemoval",
			fmt.Sprintf("%d control-plane Machine(s) wait for eggo to remove their nodes", len(machines)-len(live)))
	} else {
		setCondition(cp, cpv1.ScalingDownCondition, metav1.ConditionFalse, "NotScalingDown", "")
	}
	return machines, nil
}

// eggoCluster is the EggoCluster the control plane writes (named after
// the Cluster), read past the cache; nil while there is none. One of that
// name the control plane does not control is refused, named, and left as
// it is.
func (r *Reconciler) eggoCluster(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster) (*eggov1.EggoCluster, error) {
	var cur eggov1.EggoCluster
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: cluster.Name}, &cur)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !metav1.IsControlledBy(&cur, cp) {
		return nil, fmt.Errorf("EggoCluster %s/%s exists and is not this control plane's: not overwritten", cur.Namespace, cur.Name)
	}
	return &cur, nil
}

// writeEggoCluster creates the EggoCluster (cur nil) or brings cur's spec
// to desired's, and returns it as the API server has it.
func (r *Reconciler) writeEggoCluster(ctx context.Context, cp *cpv1.EggoControlPlane, cur, desired *eggov1.EggoCluster) (*eggov1.EggoCluster, error) {
	if cur == nil {
		if err := controllerutil.SetControllerReference(cp, desired, r.Scheme); err != nil {
			return nil, err
		}
		return desired, r.Create(ctx, desired)
	}
	if equality.Semantic.DeepEqual(cur.Spec, desired.Spec) {
		return cur, nil
	}
	cur.Spec = desired.Spec
	return cur, r.Update(ctx, cur) // at the resourceVersion read
}

// owningCluster is the Cluster owning cp (Cluster API sets it), nil until
// there is one.
func (r *Reconciler) owningCluster(ctx context.Context, cp *cpv1.EggoControlPlane) (*clusterv1.Cluster, error) {
	for _, ref := range cp.OwnerReferences {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != clusterv1.GroupVersion.Group || ref.Kind != "Cluster" {
			continue
		}
		var c clusterv1.Cluster
		err = r.APIReader.Get(ctx, client.ObjectKey{Namespace: cp.Namespace, Name: ref.Name}, &c)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return &c, err
	}
	return nil, nil
}

// setScalingUp says which Machines wait for a host or bootstrap data.
func setScalingUp(cp *cpv1.EggoControlPlane, waiting []string) {
	if len(waiting) == 0 {
		setCondition(cp, cpv1.ScalingUpCondition, metav1.ConditionFalse, "NotScalingUp", "")
		return
	}
	setCondition(cp, cpv1.ScalingUpCondition, metav1.ConditionTrue, "WaitingForMachines",
		fmt.Sprintf("%d machine(s) wait for a host or bootstrap data: %v", len(waiting), waiting))
}

func setCondition(cp *cpv1.EggoControlPlane, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&cp.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: cp.Generation})
}

func (r *Reconciler) saveStatus(ctx context.Context, cp *cpv1.EggoControlPlane, before *cpv1.EggoControlPlaneStatus) error {
	if equality.Semantic.DeepEqual(*before, cp.Status) {
		return nil
	}
	return r.Status().Update(ctx, cp)
}

// SetupWithManager registers the reconciler: on its EggoControlPlanes,
// the EggoClusters they control, and the Machines, SSHMachines and
// SSHHosts of their Clusters (watch.go). The manager's scheme
// must hold eggo.io's EggoCluster.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		r.Client, r.APIReader, r.Scheme = mgr.GetClient(), mgr.GetAPIReader(), mgr.GetScheme()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&cpv1.EggoControlPlane{}).
		Owns(&eggov1.EggoCluster{}).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(r.byClusterLabel)).
		Watches(&infrav1.SSHMachine{}, handler.EnqueueRequestsFromMapFunc(r.byClusterLabel)).
		Watches(&infrav1.SSHHost{}, handler.EnqueueRequestsFromMapFunc(r.byHostClaim)).
		WithOptions(opts).
		Named("eggocontrolplane").
		Complete(r)
}
