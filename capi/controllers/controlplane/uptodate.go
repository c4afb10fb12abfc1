package controlplane

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/retry"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// machineUpToDate says whether control-plane Machine m runs what cp's
// spec says: eggo applied its node and the EggoCluster as written (the
// spec's version included), with nothing pending or failed since. It is
// the one notion behind status.upToDateReplicas and each Machine's
// UpToDate condition, so the two never disagree. When m is not, why says
// so, one difference a line, the version worded as KubeadmControlPlane
// words it. ec is nil before the first write.
func machineUpToDate(cp *cpv1.EggoControlPlane, ec *eggov1.EggoCluster, m *clusterv1.Machine) (ok bool, why []string) {
	// The Machine's version is recorded once eggo rolled its node to the
	// spec's in place (observe): until then it names the version it runs.
	if m.Spec.Version != cp.Spec.Version {
		why = append(why, fmt.Sprintf("Version %s, %s required", m.Spec.Version, cp.Spec.Version))
	}
	switch {
	case ec == nil:
		why = append(why, "Waiting for eggo's first apply")
	case !applied(ec, m.Name):
		why = append(why, fmt.Sprintf("Waiting for eggo to apply its node (EggoCluster %s)", ec.Name))
	case !current(ec):
		why = append(why, pendingApply(ec))
	}
	return len(why) == 0, why
}

// pendingApply says what eggo has yet to do before ec's spec as written
// is applied: plan it, or get it approved and applied (or recover from a
// failure), as its Ready condition's reason tells.
func pendingApply(ec *eggov1.EggoCluster) string {
	if ec.Status.ObservedGeneration != ec.Generation {
		return fmt.Sprintf("Waiting for eggo to plan EggoCluster %s generation %d", ec.Name, ec.Generation)
	}
	if c := meta.FindStatusCondition(ec.Status.Conditions, eggov1.ConditionReady); c != nil && c.Reason != "" {
		return fmt.Sprintf("Waiting for eggo to apply EggoCluster %s (%s)", ec.Name, c.Reason)
	}
	return fmt.Sprintf("Waiting for eggo to apply EggoCluster %s", ec.Name)
}

// reconcileUpToDate sets each of machines' UpToDate condition from
// machineUpToDate and counts those up to date. As in KubeadmControlPlane,
// a Machine's owner is the one that knows whether it matches its spec,
// so core leaves this condition of control-plane Machines to us. A Machine
// that failed to patch is still counted; the errors come back together.
func (r *Reconciler) reconcileUpToDate(ctx context.Context, cp *cpv1.EggoControlPlane, ec *eggov1.EggoCluster, machines []clusterv1.Machine) (int32, error) {
	var n int32
	var errs []error
	for i := range machines {
		ok, why := machineUpToDate(cp, ec, &machines[i])
		if ok {
			n++
		}
		if err := r.setUpToDate(ctx, &machines[i], ok, why); err != nil {
			errs = append(errs, err)
		}
	}
	return n, kerrors.NewAggregate(errs)
}

// setUpToDate writes m's UpToDate condition when it changed. Core's
// Machine controller writes its own conditions into the same list; a merge
// patch replaces the whole list, so it carries the resourceVersion read
// (an optimistic lock) and, on a conflict, this condition is set again on
// the Machine read afresh: what KubeadmControlPlane's patch helper does
// for the conditions it owns, so neither controller drops the other's.
func (r *Reconciler) setUpToDate(ctx context.Context, m *clusterv1.Machine, ok bool, why []string) error {
	want := metav1.Condition{Type: clusterv1.MachineUpToDateCondition, Status: metav1.ConditionTrue, Reason: clusterv1.MachineUpToDateReason}
	if !ok {
		lines := make([]string, len(why))
		for i, w := range why {
			lines[i] = "* " + w // the list format of core's and KCP's condition messages
		}
		want = metav1.Condition{Type: clusterv1.MachineUpToDateCondition, Status: metav1.ConditionFalse,
			Reason: clusterv1.MachineNotUpToDateReason, Message: strings.Join(lines, "\n")}
	}
	latest := m
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		if latest == nil {
			latest = &clusterv1.Machine{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(m), latest); err != nil {
				return err
			}
		}
		cur := latest
		latest = nil // a retry reads the Machine again
		want.ObservedGeneration = cur.Generation
		if c := meta.FindStatusCondition(cur.Status.Conditions, want.Type); c != nil && c.Status == want.Status &&
			c.Reason == want.Reason && c.Message == want.Message && c.ObservedGeneration == want.ObservedGeneration {
			return nil // unchanged: no write
		}
		patch := client.MergeFromWithOptions(cur.DeepCopy(), client.MergeFromWithOptimisticLock{})
		meta.SetStatusCondition(&cur.Status.Conditions, want)
		return r.Status().Patch(ctx, cur, patch)
	})
	// A Machine gone since it was listed needs no condition.
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("setting UpToDate on Machine %s: %w", m.Name, err)
	}
	return nil
}
