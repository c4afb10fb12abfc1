package controller

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Reasons of the conditions.
const (
	ReasonPlanning        = "Planning"
	ReasonPlanned         = "PlanReady"
	ReasonPlanFailed      = "PlanFailed"
	ReasonAwaitApproval   = "AwaitingApproval"
	ReasonApproved        = "Approved"
	ReasonApplying        = "Applying"
	ReasonApplied         = "Applied"
	ReasonApplyFailed     = "ApplyFailed"
	ReasonNoChanges       = "NoChanges"
	ReasonDestroying      = "Destroying"
	ReasonDestroyFailed   = "DestroyFailed"
	ReasonJobLost         = "JobLost"
	ReasonInvalidSpec     = "InvalidSpec"
	ReasonJobRunning      = "JobRunning"
	ReasonNotApplied      = "NotApplied"
	ReasonFailureResolved = "NoFailure"
)

// set writes one condition, stamped with the generation it speaks of.
func set(c *v1alpha1.EggoCluster, typ string, status bool, reason, msg string) {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{
		Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: c.Generation,
	})
}

func isTrue(c *v1alpha1.EggoCluster, typ string) bool {
	return meta.IsStatusConditionTrue(c.Status.Conditions, typ)
}

// markRunning: a Job runs, so nothing is Ready, and an apply or destroy
// is Applying.
func markRunning(c *v1alpha1.EggoCluster, phase, job string) {
	c.Status.ActiveJob = job
	set(c, v1alpha1.ConditionReady, false, ReasonJobRunning, "job "+job+" is running")
	switch phase {
	case v1alpha1.PhasePlan:
		set(c, v1alpha1.ConditionPlanned, false, ReasonPlanning, "job "+job+" is planning")
		set(c, v1alpha1.ConditionApplying, false, ReasonPlanning, "")
	case v1alpha1.PhaseApply:
		set(c, v1alpha1.ConditionApplying, true, ReasonApplying, "job "+job+" applies plan "+short(c.Status.LastPlanHash))
		set(c, v1alpha1.ConditionApprovalPending, false, ReasonApproved, "")
	case v1alpha1.PhaseDestroy:
		set(c, v1alpha1.ConditionApplying, true, ReasonDestroying, "job "+job+" destroys the cluster")
	}
}

// markFailed records a failed run: Failed, not Ready, not Applying.
func markFailed(c *v1alpha1.EggoCluster, reason, msg string) {
	c.Status.LastFailure = msg
	set(c, v1alpha1.ConditionFailed, true, reason, msg)
	set(c, v1alpha1.ConditionReady, false, reason, "the last run failed: see status.lastFailure")
	set(c, v1alpha1.ConditionApplying, false, reason, "")
}

// clearFailed: the last run succeeded.
func clearFailed(c *v1alpha1.EggoCluster) {
	c.Status.LastFailure = ""
	set(c, v1alpha1.ConditionFailed, false, ReasonFailureResolved, "")
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
