package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// want is one derived condition: its status, reason, and a piece of its
// message ("" checks none).
type want struct {
	status bool
	reason string
	msg    string
}

var (
	hashA = strings.Repeat("a", 64)
	hashB = strings.Repeat("b", 64)
)

// facts is a cluster of generation 1 (Manual approval) whose status holds
// only the facts edit sets; no condition.
func facts(edit func(c *v1alpha1.EggoCluster)) *v1alpha1.EggoCluster {
	c := &v1alpha1.EggoCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", Generation: 1},
		Spec:       v1alpha1.EggoClusterSpec{Approval: v1alpha1.ApprovalManual},
	}
	edit(c)
	return c
}

// planOf: generation 1's plan is hash, with add additions.
func planOf(c *v1alpha1.EggoCluster, hash string, add int) {
	c.Status.ObservedGeneration = c.Generation
	c.Status.LastPlanHash, c.Status.PlanRef = hash, v1alpha1.PlanObjectName(c.Name, hash)
	c.Status.PlanSummary = &v1alpha1.PlanSummary{Add: add}
}

func runs(c *v1alpha1.EggoCluster, phase, job string) {
	c.Status.ActiveJob, c.Status.ActiveJobPhase = job, phase
}

func failure(c *v1alpha1.EggoCluster, reason, msg string) {
	c.Status.LastFailure, c.Status.LastFailureReason = msg, reason
}

func deleted(c *v1alpha1.EggoCluster) {
	now := metav1.Now()
	c.DeletionTimestamp = &now
	c.Generation++ // the API server bumps it when it marks the object deleted
}

// conditionRows map the status's facts to the four derived conditions
// (Planned, ApprovalPending, Applying, Ready), one row per state the
// controller can be in.
var conditionRows = []struct {
	name                              string
	facts                             func(c *v1alpha1.EggoCluster)
	planned, pending, applying, ready want
	applyDue                          bool
}{
	{
		name:    "no plan yet",
		facts:   func(c *v1alpha1.EggoCluster) {},
		planned: want{false, v1alpha1.ReasonNotPlanned, "generation 1"}, pending: want{false, v1alpha1.ReasonNotPlanned, ""},
		applying: want{false, v1alpha1.ReasonNotPlanned, ""}, ready: want{false, v1alpha1.ReasonNotPlanned, "not planned"},
	},
	{
		name:    "a plan Job runs",
		facts:   func(c *v1alpha1.EggoCluster) { runs(c, v1alpha1.PhasePlan, "demo-plan-g1") },
		planned: want{false, v1alpha1.ReasonPlanning, "job demo-plan-g1 is planning"}, pending: want{false, v1alpha1.ReasonPlanning, ""},
		applying: want{false, v1alpha1.ReasonPlanning, ""}, ready: want{false, v1alpha1.ReasonJobRunning, "job demo-plan-g1 is running"},
	},
	{
		name:     "a plan with changes awaits approval (Manual)",
		facts:    func(c *v1alpha1.EggoCluster) { planOf(c, hashA, 2) },
		planned:  want{true, v1alpha1.ReasonPlanReady, "plan aaaaaaaaaaaa for generation 1 is in ConfigMap demo-plan-aaaaaaaaaaaa"},
		pending:  want{true, v1alpha1.ReasonAwaitingApproval, "approve with: kubectl -n ns annotate --overwrite eggocluster demo eggo.io/approve-plan=" + hashA},
		applying: want{false, v1alpha1.ReasonAwaitingApproval, ""}, ready: want{false, v1alpha1.ReasonAwaitingApproval, "waits for approval"},
	},
	{
		name: "a prefix of the plan's hash approves nothing",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Annotations = map[string]string{v1alpha1.ApproveAnnotation: hashA[:12]}
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{true, v1alpha1.ReasonAwaitingApproval, ""},
		applying: want{false, v1alpha1.ReasonAwaitingApproval, ""}, ready: want{false, v1alpha1.ReasonAwaitingApproval, ""},
	},
	{
		name: "approved by its exact hash, no Job yet: its apply is due",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Annotations = map[string]string{v1alpha1.ApproveAnnotation: hashA}
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApproved, ""},
		applying: want{false, v1alpha1.ReasonApproved, ""}, ready: want{false, v1alpha1.ReasonApproved, "is approved"},
		applyDue: true,
	},
	{
		name:    "Automatic approval: the plan's apply is due",
		facts:   func(c *v1alpha1.EggoCluster) { planOf(c, hashA, 2); c.Spec.Approval = v1alpha1.ApprovalAutomatic },
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApproved, ""},
		applying: want{false, v1alpha1.ReasonApproved, ""}, ready: want{false, v1alpha1.ReasonApproved, ""},
		applyDue: true,
	},
	{
		name:    "a plan with no changes is Ready and never applied",
		facts:   func(c *v1alpha1.EggoCluster) { planOf(c, hashA, 0); c.Spec.Approval = v1alpha1.ApprovalAutomatic },
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonNoChanges, ""},
		applying: want{false, v1alpha1.ReasonNoChanges, ""}, ready: want{true, v1alpha1.ReasonNoChanges, "plan aaaaaaaaaaaa has no changes"},
	},
	{
		name: "approved, its apply Job runs",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Annotations = map[string]string{v1alpha1.ApproveAnnotation: hashA}
			runs(c, v1alpha1.PhaseApply, "demo-apply-aaaaaaaaaaaa")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApproved, ""},
		applying: want{true, v1alpha1.ReasonApplying, "job demo-apply-aaaaaaaaaaaa applies plan aaaaaaaaaaaa"},
		ready:    want{false, v1alpha1.ReasonJobRunning, "job demo-apply-aaaaaaaaaaaa is running"},
	},
	{
		name:    "applied: Ready",
		facts:   func(c *v1alpha1.EggoCluster) { planOf(c, hashA, 2); c.Status.LastAppliedPlanHash = hashA },
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApplied, ""},
		applying: want{false, v1alpha1.ReasonApplied, ""}, ready: want{true, v1alpha1.ReasonApplied, "plan aaaaaaaaaaaa is applied"},
	},
	{
		name: "applied, then an empty plan: Ready stays",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashB, 0)
			c.Status.LastAppliedPlanHash = hashA
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonNoChanges, ""},
		applying: want{false, v1alpha1.ReasonNoChanges, ""}, ready: want{true, v1alpha1.ReasonNoChanges, ""},
	},
	{
		name: "applied, then a new plan under the old plan's approval: it waits, and the cluster still serves the applied one",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashB, 1)
			c.Status.LastAppliedPlanHash = hashA
			c.Annotations = map[string]string{v1alpha1.ApproveAnnotation: hashA}
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{true, v1alpha1.ReasonAwaitingApproval, hashB},
		applying: want{false, v1alpha1.ReasonAwaitingApproval, ""},
		ready:    want{true, v1alpha1.ReasonAwaitingApproval, "plan aaaaaaaaaaaa is applied; plan bbbbbbbbbbbb waits for approval"},
	},
	{
		name: "applied, then a failed apply of a newer plan: not Ready",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashB, 1)
			c.Status.LastAppliedPlanHash, c.Status.LastFailedPlanHash = hashA, hashB
			c.Status.LastFailure, c.Status.LastFailureReason = "boom", v1alpha1.ReasonApplyFailed
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApplyFailed, ""},
		applying: want{false, v1alpha1.ReasonApplyFailed, ""}, ready: want{false, v1alpha1.ReasonApplyFailed, ""},
	},
	{
		name: "the apply failed: Failed's reason, and the plan is not applied again",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Spec.Approval = v1alpha1.ApprovalAutomatic
			c.Status.LastFailedPlanHash = hashA
			failure(c, v1alpha1.ReasonApplyFailed, "Error: host.w0: no route to host")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApplyFailed, ""},
		applying: want{false, v1alpha1.ReasonApplyFailed, ""}, ready: want{false, v1alpha1.ReasonApplyFailed, "see status.lastFailure"},
	},
	{
		name: "the plan's apply failed, the failure since cleared: still not applied again",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Spec.Approval = v1alpha1.ApprovalAutomatic
			c.Status.LastFailedPlanHash = hashA
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonApplyFailed, ""},
		applying: want{false, v1alpha1.ReasonApplyFailed, ""}, ready: want{false, v1alpha1.ReasonApplyFailed, "to plan again"},
	},
	{
		name: "the plan failed",
		facts: func(c *v1alpha1.EggoCluster) {
			c.Status.ObservedGeneration = 1
			failure(c, v1alpha1.ReasonPlanFailed, "HOST KEY MISMATCH for ww1")
		},
		planned: want{false, v1alpha1.ReasonPlanFailed, "see status.lastFailure"}, pending: want{false, v1alpha1.ReasonPlanFailed, ""},
		applying: want{false, v1alpha1.ReasonPlanFailed, ""}, ready: want{false, v1alpha1.ReasonPlanFailed, ""},
	},
	{
		name: "a plan failed after an apply: not Ready although a plan was applied",
		facts: func(c *v1alpha1.EggoCluster) {
			c.Status.ObservedGeneration, c.Status.LastAppliedPlanHash = 1, hashA
			failure(c, v1alpha1.ReasonPlanFailed, "HOST KEY MISMATCH for ww1")
		},
		planned: want{false, v1alpha1.ReasonPlanFailed, ""}, pending: want{false, v1alpha1.ReasonPlanFailed, ""},
		applying: want{false, v1alpha1.ReasonPlanFailed, ""}, ready: want{false, v1alpha1.ReasonPlanFailed, ""},
	},
	{
		name: "an invalid spec: Planned says what is wrong",
		facts: func(c *v1alpha1.EggoCluster) {
			c.Status.ObservedGeneration = 1
			failure(c, v1alpha1.ReasonInvalidSpec, "sshKeySecretRef identity: want a Secret of type kubernetes.io/ssh-auth")
		},
		planned: want{false, v1alpha1.ReasonInvalidSpec, "kubernetes.io/ssh-auth"}, pending: want{false, v1alpha1.ReasonInvalidSpec, ""},
		applying: want{false, v1alpha1.ReasonInvalidSpec, ""}, ready: want{false, v1alpha1.ReasonInvalidSpec, ""},
	},
	{
		name: "the spec changed after an apply, its plan not started yet",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Status.LastAppliedPlanHash = hashA
			c.Generation = 2
		},
		planned: want{false, v1alpha1.ReasonNotPlanned, "generation 2 is not planned yet"}, pending: want{false, v1alpha1.ReasonNotPlanned, ""},
		applying: want{false, v1alpha1.ReasonNotPlanned, ""}, ready: want{false, v1alpha1.ReasonNotPlanned, ""},
	},
	{
		name: "the spec changed after an apply, its plan Job runs: the cluster still serves the applied plan",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Status.LastAppliedPlanHash = hashA
			c.Generation = 2
			runs(c, v1alpha1.PhasePlan, "demo-plan-g2")
		},
		planned: want{false, v1alpha1.ReasonPlanning, "demo-plan-g2"}, pending: want{false, v1alpha1.ReasonPlanning, ""},
		applying: want{false, v1alpha1.ReasonPlanning, ""},
		ready:    want{true, v1alpha1.ReasonPlanning, "plan aaaaaaaaaaaa is applied; job demo-plan-g2 is making a new plan"},
	},
	{
		name: "the spec changed while the approved plan's apply runs",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Spec.Approval = v1alpha1.ApprovalAutomatic
			c.Generation = 2
			runs(c, v1alpha1.PhaseApply, "demo-apply-aaaaaaaaaaaa")
		},
		planned: want{false, v1alpha1.ReasonNotPlanned, ""}, pending: want{false, v1alpha1.ReasonApproved, ""},
		applying: want{true, v1alpha1.ReasonApplying, ""}, ready: want{false, v1alpha1.ReasonJobRunning, ""},
	},
	{
		name: "the running Job is lost: its plan is not applied behind anyone's back",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Spec.Approval = v1alpha1.ApprovalAutomatic
			c.Status.LastFailedPlanHash = hashA
			failure(c, v1alpha1.ReasonJobLost, "job demo-apply-aaaaaaaaaaaa disappeared before it finished")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonJobLost, ""},
		applying: want{false, v1alpha1.ReasonJobLost, ""}, ready: want{false, v1alpha1.ReasonJobLost, ""},
	},
	{
		name: "a failure stands over an empty plan: not Ready",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 0)
			failure(c, v1alpha1.ReasonJobLost, "job demo-plan-g1-0a1b2c3d disappeared before it finished")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonJobLost, ""},
		applying: want{false, v1alpha1.ReasonJobLost, ""}, ready: want{false, v1alpha1.ReasonJobLost, ""},
	},
	{
		name: "a failure recorded before lastFailureReason existed",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Status.LastFailedPlanHash = hashA
			c.Status.LastFailure = "Error: host.w0: no route to host"
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonFailed, ""},
		applying: want{false, v1alpha1.ReasonFailed, ""}, ready: want{false, v1alpha1.ReasonFailed, ""},
	},
	{
		name: "deleted: the destroy Job runs",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Status.LastAppliedPlanHash = hashA
			deleted(c)
			runs(c, v1alpha1.PhaseDestroy, "demo-destroy")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonDestroying, ""},
		applying: want{true, v1alpha1.ReasonDestroying, "job demo-destroy destroys the cluster"},
		ready:    want{false, v1alpha1.ReasonJobRunning, "job demo-destroy is running"},
	},
	{
		name: "deleted while an approved plan's apply runs: the destroy waits for it",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Annotations = map[string]string{v1alpha1.ApproveAnnotation: hashA}
			deleted(c)
			runs(c, v1alpha1.PhaseApply, "demo-apply-aaaaaaaaaaaa")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonDestroying, ""},
		applying: want{true, v1alpha1.ReasonApplying, ""}, ready: want{false, v1alpha1.ReasonJobRunning, ""},
	},
	{
		name: "deleted, an approved plan's apply not started: nothing is due",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Spec.Approval = v1alpha1.ApprovalAutomatic
			deleted(c)
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonDestroying, ""},
		applying: want{false, v1alpha1.ReasonDestroying, ""}, ready: want{false, v1alpha1.ReasonDestroying, "being deleted"},
	},
	{
		name: "the destroy failed",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Status.LastAppliedPlanHash = hashA
			deleted(c)
			failure(c, v1alpha1.ReasonDestroyFailed, "Error: host.w0: unreachable")
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonDestroying, ""},
		applying: want{false, v1alpha1.ReasonDestroyFailed, ""}, ready: want{false, v1alpha1.ReasonDestroyFailed, "see status.lastFailure"},
	},
	{
		name: "a Job of an unknown phase runs (a status from an older controller)",
		facts: func(c *v1alpha1.EggoCluster) {
			planOf(c, hashA, 2)
			c.Status.LastAppliedPlanHash = hashA
			c.Status.ActiveJob = "demo-apply-aaaaaaaaaaaa"
		},
		planned: want{true, v1alpha1.ReasonPlanReady, ""}, pending: want{false, v1alpha1.ReasonJobRunning, ""},
		applying: want{false, v1alpha1.ReasonJobRunning, ""}, ready: want{false, v1alpha1.ReasonJobRunning, ""},
	},
}

// TestDeriveConditions maps facts to conditions, without an API server:
// every row's four conditions (status, reason, a piece of the message,
// the generation they speak of), whether an apply is due, and that the
// conditions are ones the API server accepts.
func TestDeriveConditions(t *testing.T) {
	for _, row := range conditionRows {
		t.Run(row.name, func(t *testing.T) {
			c := facts(row.facts)
			deriveConditions(c)
			for typ, w := range map[string]want{
				v1alpha1.ConditionPlanned: row.planned, v1alpha1.ConditionApprovalPending: row.pending,
				v1alpha1.ConditionApplying: row.applying, v1alpha1.ConditionReady: row.ready,
			} {
				checkCondition(t, c, typ, w)
			}
			if got := applyDue(c); got != row.applyDue {
				t.Errorf("applyDue = %v, want %v", got, row.applyDue)
			}
			if meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionFailed) != nil {
				t.Errorf("deriveConditions wrote Failed, an event it cannot know")
			}
			if errs := metav1validation.ValidateConditions(c.Status.Conditions, field.NewPath("status", "conditions")); len(errs) > 0 {
				t.Errorf("the API server would refuse the conditions: %v", errs.ToAggregate())
			}
		})
	}
}

func checkCondition(t *testing.T, c *v1alpha1.EggoCluster, typ string, w want) {
	t.Helper()
	got := meta.FindStatusCondition(c.Status.Conditions, typ)
	if got == nil {
		t.Errorf("%s: not set", typ)
		return
	}
	status := metav1.ConditionFalse
	if w.status {
		status = metav1.ConditionTrue
	}
	if got.Status != status || got.Reason != w.reason || !strings.Contains(got.Message, w.msg) {
		t.Errorf("%s = %s %s %q, want %s %s (message with %q)", typ, got.Status, got.Reason, got.Message, status, w.reason, w.msg)
	}
	if got.ObservedGeneration != c.Generation {
		t.Errorf("%s speaks of generation %d, want %d", typ, got.ObservedGeneration, c.Generation)
	}
}

// TestDeriveConditionsReadsNoCondition: what the conditions said before
// (here, every one True with a stale reason) changes nothing derived, and
// deriving again changes nothing (no transition time moves, so a status
// whose facts did not change is not written).
func TestDeriveConditionsReadsNoCondition(t *testing.T) {
	old := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, row := range conditionRows {
		t.Run(row.name, func(t *testing.T) {
			clean := facts(row.facts)
			deriveConditions(clean)
			stale := facts(row.facts)
			for _, typ := range []string{v1alpha1.ConditionPlanned, v1alpha1.ConditionApprovalPending,
				v1alpha1.ConditionApplying, v1alpha1.ConditionReady, v1alpha1.ConditionFailed} {
				stale.Status.Conditions = append(stale.Status.Conditions, metav1.Condition{
					Type: typ, Status: metav1.ConditionTrue, Reason: "Stale", Message: "stale", LastTransitionTime: old})
			}
			deriveConditions(stale)
			if a, b := summary(clean, false), summary(stale, false); a != b {
				t.Errorf("derived from stale conditions:\n%s\nwant\n%s", b, a)
			}
			if f := meta.FindStatusCondition(stale.Status.Conditions, v1alpha1.ConditionFailed); f == nil || f.Reason != "Stale" {
				t.Errorf("Failed changed by deriveConditions: %+v", f)
			}
			before := summary(clean, true)
			deriveConditions(clean)
			if after := summary(clean, true); after != before {
				t.Errorf("deriving twice changed the conditions:\n%s\nthen\n%s", before, after)
			}
		})
	}
}

// summary prints the four derived conditions (with their transition
// times if times).
func summary(c *v1alpha1.EggoCluster, times bool) string {
	var b strings.Builder
	for _, typ := range []string{v1alpha1.ConditionPlanned, v1alpha1.ConditionApprovalPending, v1alpha1.ConditionApplying, v1alpha1.ConditionReady} {
		got := meta.FindStatusCondition(c.Status.Conditions, typ)
		if got == nil {
			fmt.Fprintf(&b, "%s unset\n", typ)
			continue
		}
		fmt.Fprintf(&b, "%s=%s %s %q gen %d", typ, got.Status, got.Reason, got.Message, got.ObservedGeneration)
		if times {
			fmt.Fprintf(&b, " at %s", got.LastTransitionTime)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestRecordedFacts: the recorders write facts only, except Failed (an
// event: set by a failure, cleared by a later success); a failed or
// refused plan forgets the previous plan and observes what it was made for.
func TestRecordedFacts(t *testing.T) {
	c := facts(func(c *v1alpha1.EggoCluster) { planOf(c, hashA, 2); c.Generation = 2 })
	markRunning(c, v1alpha1.PhasePlan, "demo-plan-g2")
	if c.Status.ActiveJob != "demo-plan-g2" || c.Status.ActiveJobPhase != v1alpha1.PhasePlan || len(c.Status.Conditions) != 0 {
		t.Fatalf("markRunning: %+v", c.Status)
	}
	markEnded(c)
	observePlan(c, 2, planInputs{config: "0123456789abcdef", request: "again"}, nil)
	markFailed(c, v1alpha1.ReasonPlanFailed, "HOST KEY MISMATCH")
	s := c.Status
	if s.ActiveJob != "" || s.ActiveJobPhase != "" || s.LastPlanHash != "" || s.PlanSummary != nil || s.PlanRef != "" ||
		s.ObservedGeneration != 2 || s.ObservedConfigHash != "0123456789abcdef" || s.ObservedPlanRequest != "again" ||
		s.LastFailure != "HOST KEY MISMATCH" || s.LastFailureReason != v1alpha1.ReasonPlanFailed {
		t.Fatalf("after a failed plan: %+v", s)
	}
	checkFailed(t, c, metav1.ConditionTrue, v1alpha1.ReasonPlanFailed)
	if len(c.Status.Conditions) != 1 {
		t.Fatalf("the recorders wrote more than Failed: %+v", c.Status.Conditions)
	}
	observePlan(c, 2, planInputs{}, &planResult{hash: hashB, summary: v1alpha1.PlanSummary{Add: 1}, ref: "demo-plan-bbbbbbbbbbbb"})
	clearFailed(c)
	s = c.Status
	if s.LastPlanHash != hashB || s.PlanSummary == nil || s.PlanSummary.Add != 1 || s.PlanRef != "demo-plan-bbbbbbbbbbbb" ||
		s.ObservedConfigHash != "" || s.ObservedPlanRequest != "" || s.LastFailure != "" || s.LastFailureReason != "" {
		t.Fatalf("after a plan: %+v", s)
	}
	checkFailed(t, c, metav1.ConditionFalse, v1alpha1.ReasonNoFailure)
}

func checkFailed(t *testing.T, c *v1alpha1.EggoCluster, status metav1.ConditionStatus, reason string) {
	t.Helper()
	f := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionFailed)
	if f == nil || f.Status != status || f.Reason != reason || f.ObservedGeneration != c.Generation {
		t.Fatalf("Failed = %+v, want %s %s for generation %d", f, status, reason, c.Generation)
	}
}
