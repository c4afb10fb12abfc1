package controller

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"

	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// finalize handles a deleted EggoCluster. Orphan: the finalizer goes at
// once and the hosts stay as they are. Destroy: once no other Job of the
// cluster runs, a destroy Job; when it succeeds the finalizer goes; when
// it fails the EggoCluster stays, Failed, until someone fixes the cause
// and asks again (a new eggo.io/plan-requested value starts a new destroy
// Job; so does removing the failed one) or sets deletionPolicy Orphan.
func (r *Reconciler) finalize(ctx context.Context, c *v1alpha1.EggoCluster) error {
	if !controllerutil.ContainsFinalizer(c, v1alpha1.Finalizer) {
		return nil
	}
	if c.Spec.DeletionPolicy == v1alpha1.DeletionOrphan {
		return r.dropFinalizer(ctx, c)
	}
	jobs, err := r.clusterJobs(ctx, c)
	if err != nil {
		return err
	}
	if neverApplied(c, jobs) {
		return r.dropFinalizer(ctx, c) // it changed no host: there is nothing of its own to destroy
	}
	before := c.Status.DeepCopy()
	done, err := r.destroyStep(ctx, c, jobs)
	if err != nil {
		return err
	}
	if done {
		return r.dropFinalizer(ctx, c)
	}
	return r.saveStatus(ctx, c, before)
}

// destroyStep waits for a running Job, records the destroy Job's end, or
// starts it; done when it has succeeded.
func (r *Reconciler) destroyStep(ctx context.Context, c *v1alpha1.EggoCluster, jobs []batchv1.Job) (bool, error) {
	if j := activeJob(jobs); j != nil {
		markRunning(c, j.Labels[v1alpha1.LabelPhase], j.Name)
		return false, nil
	}
	req := jobRequest{phase: v1alpha1.PhaseDestroy, inputs: planInputs{request: c.Annotations[v1alpha1.PlanRequestAnnotation]}}
	name := jobName(c, req)
	if j := findJob(jobs, name); j != nil {
		if jobOutcome(j) == succeeded {
			return true, nil
		}
		if c.Status.ActiveJob == name {
			r.recordFailure(ctx, c, j, v1alpha1.PhaseDestroy)
			markEnded(c)
		}
		return false, nil
	}
	if prev := c.Status.ActiveJob; prev != "" {
		if err := r.record(ctx, c, prev, findJob(jobs, prev)); err != nil {
			return false, err
		}
	}
	_, err := r.startJob(ctx, c, req)
	return false, err
}

// neverApplied: no apply Job of the cluster ever started (none recorded,
// none there). Destroying then would take down whatever the state holds
// from elsewhere (a cluster migrated in from the CLI) although this
// EggoCluster never touched a host.
func neverApplied(c *v1alpha1.EggoCluster, jobs []batchv1.Job) bool {
	if c.Status.LastAppliedPlanHash != "" || c.Status.LastFailedPlanHash != "" {
		return false
	}
	for _, j := range jobs {
		if p := j.Labels[v1alpha1.LabelPhase]; p == v1alpha1.PhaseApply || p == v1alpha1.PhaseDestroy {
			return false
		}
	}
	return true
}

func (r *Reconciler) dropFinalizer(ctx context.Context, c *v1alpha1.EggoCluster) error {
	controllerutil.RemoveFinalizer(c, v1alpha1.Finalizer)
	return r.Update(ctx, c)
}
