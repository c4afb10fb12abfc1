package controller

import (
	"context"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// record writes a finished Job's outcome into the status. job is nil when
// the Job is gone before its outcome was seen (deleted by hand).
func (r *Reconciler) record(ctx context.Context, c *v1alpha1.EggoCluster, name string, job *batchv1.Job) error {
	if job == nil {
		markFailed(c, v1alpha1.ReasonJobLost, "job "+name+" disappeared before it finished")
		if c.Status.LastPlanHash != "" && c.Status.LastPlanHash != c.Status.LastAppliedPlanHash {
			c.Status.LastFailedPlanHash = c.Status.LastPlanHash // never applied twice behind a person's back
		}
		return nil
	}
	phase := job.Labels[v1alpha1.LabelPhase]
	r.recordNodes(ctx, c, job.Name)
	if jobOutcome(job) == failed {
		r.event(c, true, "JobFailed", phase+" job "+job.Name+" failed: see status.lastFailure")
		r.recordFailure(ctx, c, job, phase)
		return nil
	}
	r.event(c, false, "JobSucceeded", phase+" job "+job.Name+" succeeded")
	switch phase {
	case v1alpha1.PhasePlan:
		return r.recordPlan(ctx, c, job)
	case v1alpha1.PhaseApply:
		c.Status.LastAppliedPlanHash = job.Annotations[v1alpha1.AnnotationPlanHash]
		clearFailed(c)
	}
	return nil
}

func (r *Reconciler) recordFailure(ctx context.Context, c *v1alpha1.EggoCluster, job *batchv1.Job, phase string) {
	msg := r.failureMessage(ctx, job)
	switch phase {
	case v1alpha1.PhasePlan:
		observePlan(c, jobGeneration(job), inputsOfJob(job), nil)
		markFailed(c, v1alpha1.ReasonPlanFailed, msg)
	case v1alpha1.PhaseApply:
		c.Status.LastFailedPlanHash = job.Annotations[v1alpha1.AnnotationPlanHash]
		markFailed(c, v1alpha1.ReasonApplyFailed, msg)
	case v1alpha1.PhaseDestroy:
		markFailed(c, v1alpha1.ReasonDestroyFailed, msg)
	}
}

// recordPlan publishes a finished plan Job's result in the status.
func (r *Reconciler) recordPlan(ctx context.Context, c *v1alpha1.EggoCluster, job *batchv1.Job) error {
	p, err := r.readPlan(ctx, c, job)
	if err != nil {
		observePlan(c, jobGeneration(job), inputsOfJob(job), nil)
		markFailed(c, v1alpha1.ReasonPlanFailed, "job "+job.Name+" succeeded but its plan cannot be read: "+err.Error())
		return nil
	}
	observePlan(c, jobGeneration(job), inputsOfJob(job), &p)
	clearFailed(c)
	return nil
}

func jobGeneration(j *batchv1.Job) int64 {
	g, _ := strconv.ParseInt(j.Labels[v1alpha1.LabelGeneration], 10, 64)
	return g
}
