// Package controller is eggo's GitOps controller: it turns EggoClusters
// into plan, apply and destroy Jobs, one at a time per cluster, and
// reports what they did in the EggoCluster's status.
package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Reconciler reconciles EggoClusters.
type Reconciler struct {
	client.Client
	// APIReader reads past the cache: Jobs (so a Job just created is
	// seen), and the ConfigMaps, Secrets and Pods the controller does not
	// watch.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Recorder, if set, records an Event on the EggoCluster when a Job
	// starts and ends (names and phases only: a failure's text is in the
	// status).
	Recorder record.EventRecorder
	// PolicyConfigMap is the admin's policy (default
	// eggo-system/eggo-policy), read before every Job.
	PolicyConfigMap client.ObjectKey
}

func (r *Reconciler) event(c *v1alpha1.EggoCluster, warning bool, reason, msg string) {
	if r.Recorder == nil {
		return
	}
	typ := corev1.EventTypeNormal
	if warning {
		typ = corev1.EventTypeWarning
	}
	r.Recorder.Event(c, typ, reason, msg)
}

// Reconcile moves one EggoCluster one step: record a finished Job, then
// start the next run if none is running.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var c v1alpha1.EggoCluster
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !c.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &c)
	}
	if controllerutil.AddFinalizer(&c, v1alpha1.Finalizer) {
		if err := r.Update(ctx, &c); err != nil {
			return ctrl.Result{}, err
		}
	}
	before := c.Status.DeepCopy()
	err := r.step(ctx, &c)
	if uerr := r.saveStatus(ctx, &c, before); err == nil {
		err = uerr
	}
	return ctrl.Result{}, err
}

// saveStatus derives the conditions from the facts recorded, then writes
// the status if it changed.
func (r *Reconciler) saveStatus(ctx context.Context, c *v1alpha1.EggoCluster, before *v1alpha1.EggoClusterStatus) error {
	deriveConditions(c)
	if equality.Semantic.DeepEqual(before, &c.Status) {
		return nil
	}
	// On a conflict the request is retried; the Job's name is
	// deterministic, so a run is never started twice.
	return r.Status().Update(ctx, c)
}

// step: while one of the cluster's Jobs runs nothing else starts; a Job
// that finished since the last look is recorded; then the next run.
func (r *Reconciler) step(ctx context.Context, c *v1alpha1.EggoCluster) error {
	jobs, err := r.clusterJobs(ctx, c)
	if err != nil {
		return err
	}
	if j := activeJob(jobs); j != nil {
		markRunning(c, j.Labels[v1alpha1.LabelPhase], j.Name)
		return nil
	}
	if name := c.Status.ActiveJob; name != "" {
		if err := r.record(ctx, c, name, findJob(jobs, name)); err != nil {
			return err
		}
		markEnded(c)
	}
	return r.next(ctx, c)
}

// next starts the run the cluster needs, if any: a plan for a spec not
// planned yet; the apply of the current plan once approved (applyDue);
// else nothing: the conditions say why it waits.
func (r *Reconciler) next(ctx context.Context, c *v1alpha1.EggoCluster) error {
	if in := r.currentInputs(ctx, c); c.Generation != c.Status.ObservedGeneration || in != observedInputs(c) {
		return r.startPlan(ctx, c, in)
	}
	if !applyDue(c) {
		return nil
	}
	_, err := r.startJob(ctx, c, jobRequest{phase: v1alpha1.PhaseApply, planHash: c.Status.LastPlanHash})
	return err
}

// startPlan starts the plan Job (startJob checks the spec first); a spec
// refused is observed with no plan, so it is not tried again until it
// changes or a plan is requested.
func (r *Reconciler) startPlan(ctx context.Context, c *v1alpha1.EggoCluster, in planInputs) error {
	name, err := r.startJob(ctx, c, jobRequest{phase: v1alpha1.PhasePlan, inputs: in})
	if err == nil && name == "" {
		observePlan(c, c.Generation, in, nil)
	}
	return err
}
