package infrastructure

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

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
