package controller

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// What the reconciler records: facts only (which Job runs, what a plan
// was made for and found, what failed). The conditions are derived from
// them (conditions.go); Failed, an event, is set here beside its facts.

// markRunning records the Job that runs now and its phase.
func markRunning(c *v1alpha1.EggoCluster, phase, job string) {
	c.Status.ActiveJob, c.Status.ActiveJobPhase = job, phase
}

// markEnded: the running Job's end has been recorded.
func markEnded(c *v1alpha1.EggoCluster) {
	c.Status.ActiveJob, c.Status.ActiveJobPhase = "", ""
}

// markFailed records a failed run: its message and reason, and the event
// Failed.
func markFailed(c *v1alpha1.EggoCluster, reason, msg string) {
	c.Status.LastFailure, c.Status.LastFailureReason = msg, reason
	setFailed(c, true, reason, msg)
}

// clearFailed: a run succeeded, so the last failure is over.
func clearFailed(c *v1alpha1.EggoCluster) {
	c.Status.LastFailure, c.Status.LastFailureReason = "", ""
	setFailed(c, false, v1alpha1.ReasonNoFailure, "")
}

func setFailed(c *v1alpha1.EggoCluster, failed bool, reason, msg string) {
	cond := condition(v1alpha1.ConditionFailed, failed, reason, msg)
	cond.ObservedGeneration = c.Generation
	meta.SetStatusCondition(&c.Status.Conditions, cond)
}

// observePlan records what a finished plan Job (or a spec refused before
// one started) was made for, its generation and inputs, and the plan it
// published: nil for none, which forgets the previous plan (it is not the
// current generation's, and is never applied).
func observePlan(c *v1alpha1.EggoCluster, generation int64, in planInputs, p *planResult) {
	s := &c.Status
	s.ObservedGeneration = generation
	s.ObservedConfigHash, s.ObservedPlanRequest = in.config, in.request
	if p == nil {
		s.LastPlanHash, s.PlanSummary, s.PlanRef = "", nil, ""
		return
	}
	s.LastPlanHash, s.PlanSummary, s.PlanRef = p.hash, &p.summary, p.ref
}
