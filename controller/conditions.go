package controller

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The status holds facts (facts.go): the Job that runs and its phase, the
// plan and what it was made for, the hashes applied and failed, the last
// failure. deriveConditions computes the conditions Planned,
// ApprovalPending, Applying and Ready from them, once per reconcile right
// before the status is written (saveStatus); nothing else sets them, and
// none is read back. Failed is an event, set beside the failure's facts.

// deriveConditions sets Planned, ApprovalPending, Applying and Ready from
// the facts the status holds, each stamped with the generation it speaks
// of. Ready summarises the others' facts: True only when the current plan
// is applied (or changes nothing), no Job runs and no failure stands.
func deriveConditions(c *v1alpha1.EggoCluster) {
	reason, msg := standing(c)
	for _, cond := range []metav1.Condition{
		planned(c), approvalPending(c, reason), applying(c, reason), ready(c, reason, msg),
	} {
		cond.ObservedGeneration = c.Generation
		meta.SetStatusCondition(&c.Status.Conditions, cond)
	}
}

func condition(typ string, status bool, reason, msg string) metav1.Condition {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg}
}

// standing is where the cluster stands when no Job runs, the most
// pressing first: a failure, the deletion, a generation not planned yet,
// then the current plan's fate (applied, failed to apply, empty, waiting
// for approval, approved).
func standing(c *v1alpha1.EggoCluster) (reason, msg string) {
	s := &c.Status
	hash := short(s.LastPlanHash)
	switch {
	case s.LastFailure != "":
		return failureReason(s), "the last run failed: see status.lastFailure"
	case deleting(c):
		return v1alpha1.ReasonDestroying, "the cluster is being deleted"
	case s.LastPlanHash == "" || c.Generation != s.ObservedGeneration:
		return v1alpha1.ReasonNotPlanned, "generation " + strconv.FormatInt(c.Generation, 10) + " is not planned yet"
	case s.LastPlanHash == s.LastAppliedPlanHash:
		return v1alpha1.ReasonApplied, "plan " + hash + " is applied"
	case s.LastPlanHash == s.LastFailedPlanHash:
		return v1alpha1.ReasonApplyFailed, "plan " + hash + " failed to apply: annotate " +
			v1alpha1.PlanRequestAnnotation + " (or change the spec) to plan again"
	case !hasChanges(s.PlanSummary):
		return v1alpha1.ReasonNoChanges, "plan " + hash + " has no changes"
	case !approved(c):
		return v1alpha1.ReasonAwaitingApproval, "plan " + hash + " waits for approval"
	}
	return v1alpha1.ReasonApproved, "plan " + hash + " is approved"
}

// applyDue: no Job runs and the current plan is approved, not applied,
// not failed, and no failure stands: its apply Job is the next run.
func applyDue(c *v1alpha1.EggoCluster) bool {
	reason, _ := standing(c)
	return c.Status.ActiveJob == "" && reason == v1alpha1.ReasonApproved
}

func failureReason(s *v1alpha1.EggoClusterStatus) string {
	if s.LastFailureReason == "" {
		return v1alpha1.ReasonFailed
	}
	return s.LastFailureReason
}

func deleting(c *v1alpha1.EggoCluster) bool { return !c.DeletionTimestamp.IsZero() }

// jobPhase is the running Job's phase, "" when none runs.
func jobPhase(c *v1alpha1.EggoCluster) string {
	if c.Status.ActiveJob == "" {
		return ""
	}
	if p := c.Status.ActiveJobPhase; p != "" {
		return p
	}
	return "unknown"
}

// planned: a plan Job runs; or the plan of the current generation (a
// deletion's new generation asks for none) is published; or why there is
// none.
func planned(c *v1alpha1.EggoCluster) metav1.Condition {
	s := &c.Status
	const typ = v1alpha1.ConditionPlanned
	switch {
	case jobPhase(c) == v1alpha1.PhasePlan:
		return condition(typ, false, v1alpha1.ReasonPlanning, "job "+s.ActiveJob+" is planning")
	case s.LastPlanHash != "" && (deleting(c) || c.Generation == s.ObservedGeneration):
		return condition(typ, true, v1alpha1.ReasonPlanReady, "plan "+short(s.LastPlanHash)+" for generation "+
			strconv.FormatInt(s.ObservedGeneration, 10)+" is in ConfigMap "+s.PlanRef)
	case s.LastPlanHash == "" && s.LastFailure != "" && s.LastFailureReason == v1alpha1.ReasonInvalidSpec:
		return condition(typ, false, v1alpha1.ReasonInvalidSpec, s.LastFailure)
	case s.LastPlanHash == "" && s.LastFailure != "" && s.LastFailureReason == v1alpha1.ReasonPlanFailed:
		return condition(typ, false, v1alpha1.ReasonPlanFailed, "the last plan failed: see status.lastFailure")
	}
	return condition(typ, false, v1alpha1.ReasonNotPlanned, "generation "+strconv.FormatInt(c.Generation, 10)+" is not planned yet")
}

// approvalPending: True only while the current plan waits for its
// approval and nothing runs; never while the cluster is being deleted.
func approvalPending(c *v1alpha1.EggoCluster, stand string) metav1.Condition {
	const typ = v1alpha1.ConditionApprovalPending
	switch phase := jobPhase(c); {
	case deleting(c) || phase == v1alpha1.PhaseDestroy:
		return condition(typ, false, v1alpha1.ReasonDestroying, "")
	case phase == v1alpha1.PhasePlan:
		return condition(typ, false, v1alpha1.ReasonPlanning, "")
	case phase == v1alpha1.PhaseApply:
		return condition(typ, false, v1alpha1.ReasonApproved, "")
	case phase != "":
		return condition(typ, false, v1alpha1.ReasonJobRunning, "")
	case stand == v1alpha1.ReasonAwaitingApproval:
		return condition(typ, true, stand, "approve with: "+ApproveCommand(c))
	}
	return condition(typ, false, stand, "")
}

// ApproveCommand is the command that approves the cluster's current plan,
// as printed: its namespace named, and --overwrite, since every plan after
// the first replaces the annotation an earlier approval set.
func ApproveCommand(c *v1alpha1.EggoCluster) string {
	return "kubectl -n " + c.Namespace + " annotate --overwrite eggocluster " + c.Name + " " +
		v1alpha1.ApproveAnnotation + "=" + c.Status.LastPlanHash
}

// applying: True while an apply or destroy Job runs.
func applying(c *v1alpha1.EggoCluster, stand string) metav1.Condition {
	const typ = v1alpha1.ConditionApplying
	job := c.Status.ActiveJob
	switch jobPhase(c) {
	case "":
		return condition(typ, false, stand, "")
	case v1alpha1.PhaseApply:
		return condition(typ, true, v1alpha1.ReasonApplying, "job "+job+" applies plan "+short(c.Status.LastPlanHash))
	case v1alpha1.PhaseDestroy:
		return condition(typ, true, v1alpha1.ReasonDestroying, "job "+job+" destroys the cluster")
	case v1alpha1.PhasePlan:
		return condition(typ, false, v1alpha1.ReasonPlanning, "")
	}
	return condition(typ, false, v1alpha1.ReasonJobRunning, "")
}

// ready says whether the cluster serves what was applied: True when the
// current plan is applied or changes nothing, and also — the cluster
// still serves its last applied plan — while a newer plan is made or
// waits for approval, with no failure standing. Never True while an
// apply or destroy Job runs, after a failure, or before anything was
// applied.
func ready(c *v1alpha1.EggoCluster, stand, msg string) metav1.Condition {
	const typ = v1alpha1.ConditionReady
	s := &c.Status
	serving := s.LastAppliedPlanHash != "" && s.LastFailure == "" && !deleting(c)
	if job := s.ActiveJob; job != "" {
		if serving && jobPhase(c) == v1alpha1.PhasePlan {
			return condition(typ, true, v1alpha1.ReasonPlanning,
				"plan "+short(s.LastAppliedPlanHash)+" is applied; job "+job+" is making a new plan")
		}
		return condition(typ, false, v1alpha1.ReasonJobRunning, "job "+job+" is running")
	}
	if serving && stand == v1alpha1.ReasonAwaitingApproval {
		return condition(typ, true, stand, "plan "+short(s.LastAppliedPlanHash)+" is applied; "+msg)
	}
	return condition(typ, stand == v1alpha1.ReasonApplied || stand == v1alpha1.ReasonNoChanges, stand, msg)
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
