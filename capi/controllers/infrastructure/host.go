package infrastructure

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

// The host discipline both claimants follow, an SSHMachine for its
// machine and an SSHCluster for its load balancer or endpoint host
// (DESIGN.md §5): (1) choose a host from a live list and record the
// choice on the claimant (the annotation infrastructure.eggo.io/host)
// first; (2) claim it by a compare-and-swap Update of its claimRef at the
// resourceVersion read; (3) proceed only once the live host shows the
// claim. A Conflict retries from a fresh read; a host someone else holds
// is forgotten and the choice starts over.

// claimant is one object's claim on the host its annotation names.
type claimant struct {
	client client.Client
	reader client.Reader
	// obj is the SSHMachine or SSHCluster: its annotation records the
	// choice.
	obj client.Object
	// holds says whether a live claim is obj's.
	holds func(*infrav1.SSHHostClaim) bool
	// take writes obj's claim into the live host and says whether obj
	// may claim it at all (false: the host is forgotten).
	take func(*infrav1.SSHHost) bool
}

// record writes the choice of host name onto obj (step 1). A result that
// is not zero, or an error, means: not recorded.
func (cl claimant) record(ctx context.Context, name string) (ctrl.Result, error) {
	ann := cl.obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[infrav1.HostAnnotation] = name
	cl.obj.SetAnnotations(ann)
	if err := cl.client.Update(ctx, cl.obj); err != nil {
		return requeueOnConflict(err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("chose a host", "host", name)
	return ctrl.Result{}, nil
}

// claim returns the host name (obj's recorded choice) once the live API
// shows it held by obj, or nil (with what to do) while it is not (steps
// 2 and 3).
func (cl claimant) claim(ctx context.Context, name string) (*infrav1.SSHHost, ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	host := &infrav1.SSHHost{}
	if err := cl.reader.Get(ctx, client.ObjectKey{Namespace: cl.obj.GetNamespace(), Name: name}, host); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ctrl.Result{}, cl.forget(ctx, "the host is gone")
		}
		return nil, ctrl.Result{}, err
	}
	if c := host.Spec.ClaimRef; c != nil && cl.holds(c) {
		return host, ctrl.Result{}, nil
	}
	if !cl.take(host) {
		why := "the host is no longer claimable"
		if c := host.Spec.ClaimRef; c != nil {
			why = "the host is claimed by " + c.ClusterName + "/" + c.MachineName + " (" + string(c.Purpose) + ")"
		}
		return nil, ctrl.Result{}, cl.forget(ctx, why)
	}
	// Update sends the resourceVersion just read: the server refuses it
	// (Conflict) if anyone wrote the host since.
	if err := cl.client.Update(ctx, host); err != nil {
		log.V(1).Info("claim lost a race; reading again", "host", name, "error", err.Error())
		res, err := requeueOnConflict(err)
		return nil, res, err
	}
	log.Info("claimed a host", "host", name, "purpose", host.Spec.ClaimRef.Purpose)
	// Read it back live: proceed only on what the server holds.
	if err := cl.reader.Get(ctx, client.ObjectKeyFromObject(host), host); err != nil {
		return nil, ctrl.Result{}, err
	}
	if c := host.Spec.ClaimRef; c == nil || !cl.holds(c) {
		return nil, ctrl.Result{RequeueAfter: conflictRetry}, nil
	}
	return host, ctrl.Result{}, nil
}

// forget clears obj's choice of host, so the next reconcile chooses again.
func (cl claimant) forget(ctx context.Context, why string) error {
	ann := cl.obj.GetAnnotations()
	ctrl.LoggerFrom(ctx).Info("forgetting the chosen host", "host", ann[infrav1.HostAnnotation], "why", why)
	delete(ann, infrav1.HostAnnotation)
	cl.obj.SetAnnotations(ann)
	if err := cl.client.Update(ctx, cl.obj); err != nil && !apierrors.IsConflict(err) {
		return err
	}
	return nil // a Conflict: the update event reconciles again
}

// chooseFree is the first, by name, of the live SSHHosts of ns that sel
// matches, unclaimed and Available (or new); "" if none.
func chooseFree(ctx context.Context, r client.Reader, ns string, sel infrav1.HostSelector) (string, error) {
	hosts := &infrav1.SSHHostList{}
	if err := r.List(ctx, hosts, client.InNamespace(ns), client.MatchingLabels(sel.MatchLabels)); err != nil {
		return "", err
	}
	var names []string
	for i := range hosts.Items {
		if claimable(&hosts.Items[i], sel) {
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

// chosenHost is, live, the host obj's annotation names; nil if none.
func chosenHost(ctx context.Context, r client.Reader, obj client.Object) (*infrav1.SSHHost, error) {
	name := obj.GetAnnotations()[infrav1.HostAnnotation]
	if name == "" {
		return nil, nil
	}
	host := &infrav1.SSHHost{}
	err := r.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, host)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return host, nil
}

// setPhase writes host's phase with cond (at its generation).
func setPhase(ctx context.Context, c client.Client, host *infrav1.SSHHost, phase infrav1.SSHHostPhase, conds ...metav1.Condition) (ctrl.Result, error) {
	host.Status.Phase = phase
	for _, cond := range conds {
		cond.ObservedGeneration = host.Generation
		paused.Set(&host.Status.Conditions, cond)
	}
	if err := c.Status().Update(ctx, host); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

// markCleaning puts a host whose node eggo still has in phase Cleaning
// (Clean=False, msg), unless it is there or NeedsCleanup already.
func markCleaning(ctx context.Context, c client.Client, host *infrav1.SSHHost, msg string) (ctrl.Result, error) {
	if host.Status.Phase == infrav1.SSHHostCleaning || host.Status.Phase == infrav1.SSHHostNeedsCleanup {
		return ctrl.Result{}, nil
	}
	ctrl.LoggerFrom(ctx).Info("waiting for eggo to remove the node before releasing the host", "host", host.Name, "why", msg)
	return setPhase(ctx, c, host, infrav1.SSHHostCleaning, metav1.Condition{Type: infrav1.SSHHostCleanCondition,
		Status: metav1.ConditionFalse, Reason: WaitingForNodeRemovalReason, Message: msg})
}

// makeAvailable makes a released host (no claimRef: released now, or by
// an earlier reconcile that stopped before the phase) Available again;
// one Cleaning is Clean now. A host still claimed, or in another phase
// (NeedsCleanup), keeps its phase. by and why say who released it and
// what allowed it.
func makeAvailable(ctx context.Context, c client.Client, host *infrav1.SSHHost, by, why string) (ctrl.Result, error) {
	if host.Spec.ClaimRef != nil {
		return ctrl.Result{}, nil
	}
	conds := []metav1.Condition{{Type: infrav1.SSHHostClaimedCondition, Status: metav1.ConditionFalse,
		Reason: "Released", Message: "released by " + by + ": " + why}}
	switch host.Status.Phase {
	case infrav1.SSHHostCleaning:
		conds = append(conds, metav1.Condition{Type: infrav1.SSHHostCleanCondition,
			Status: metav1.ConditionTrue, Reason: NodeRemovedReason, Message: why})
	case infrav1.SSHHostClaimed, "":
	default:
		return ctrl.Result{}, nil
	}
	return setPhase(ctx, c, host, infrav1.SSHHostAvailable, conds...)
}

// ownerCluster is obj's owning Cluster's ownerReference (kind Cluster,
// group cluster.x-k8s.io), nil if it has none yet.
func ownerCluster(obj client.Object) *metav1.OwnerReference {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ref.Kind == "Cluster" && gv.Group == clusterv1.GroupVersion.Group {
			return &ref
		}
	}
	return nil
}

// reservation says whether c is the endpoint host an SSHCluster reserved
// for its Cluster (of UID cluster) and no machine holds yet.
func reservation(c *infrav1.SSHHostClaim, cluster string) bool {
	return c != nil && c.Purpose == infrav1.ClaimControlPlaneEndpoint && c.ClusterUID == cluster && c.MachineUID == ""
}
