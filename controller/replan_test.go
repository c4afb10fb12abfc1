package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// planJobs are the namespace's plan Jobs, by name.
func (e *env) planJobs(t *testing.T, ns string) map[string]batchv1.Job {
	out := map[string]batchv1.Job{}
	for name, j := range e.jobs(t, ns) {
		if j.Labels[v1alpha1.LabelPhase] == v1alpha1.PhasePlan {
			out[name] = j
		}
	}
	return out
}

// newPlanJob waits for a plan Job not in seen and returns its name.
func (e *env) newPlanJob(t *testing.T, ns string, seen map[string]batchv1.Job) string {
	t.Helper()
	var name string
	eventually(t, 20*time.Second, func() (bool, string) {
		for n := range e.planJobs(t, ns) {
			if _, ok := seen[n]; !ok {
				name = n
				return true, ""
			}
		}
		return false, "no new plan Job; jobs: " + names(e.jobs(t, ns))
	})
	return name
}

// finishPlan publishes a plan for a plan Job, ends it and waits until the
// status holds it.
func (e *env) finishPlan(t *testing.T, ns, job, tag string, add int) string {
	t.Helper()
	hash := e.publishPlan(t, e.cluster(t, ns), job, tag, add)
	e.finishJob(t, ns, job, true)
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		return c.Status.LastPlanHash == hash, "lastPlanHash " + c.Status.LastPlanHash
	})
	return hash
}

// testConfigMapEdit: an EggoCluster whose configuration is in a
// ConfigMap is planned again when that ConfigMap's configuration changes
// (the spec does not), once per change, and not for an edit elsewhere in it.
func (e *env) testConfigMapEdit(t *testing.T) {
	ns := "configmap-edit"
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hcl", Namespace: ns, Annotations: optIn()},
		Data: map[string]string{"cluster.hcl": `cluster "demo" {}`, "notes": "first"}}
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) {
		must(t, e.c.Create(ctx, cm)) // the namespace is there, the EggoCluster not yet
		c.Spec.Config = v1alpha1.ConfigSource{ConfigMapRef: &v1alpha1.ConfigMapKeyRef{Name: "hcl", Key: "cluster.hcl"}}
	})
	first := e.newPlanJob(t, ns, nil)
	j := e.planJobs(t, ns)[first]
	if !strings.HasPrefix(first, "demo-plan-g1-") || j.Annotations[v1alpha1.AnnotationConfigHash] == "" {
		t.Fatalf("plan Job %s annotations %v: want a name and config hash for the ConfigMap's content", first, j.Annotations)
	}
	e.finishPlan(t, ns, first, "cm1", 2)
	c := e.cluster(t, ns)
	if c.Status.ObservedConfigHash != j.Annotations[v1alpha1.AnnotationConfigHash] {
		t.Fatalf("observedConfigHash %q, want the plan Job's %q", c.Status.ObservedConfigHash, j.Annotations[v1alpha1.AnnotationConfigHash])
	}
	// Another key of the ConfigMap: no plan.
	must(t, e.c.Get(ctx, client.ObjectKeyFromObject(cm), cm))
	cm.Data["notes"] = "second"
	must(t, e.c.Update(ctx, cm))
	consistently(t, 2*time.Second, func() (bool, string) {
		p := e.planJobs(t, ns)
		return len(p) == 1, "an edit of another key planned again: " + names(p)
	})
	// The configuration: one new plan, of the same generation.
	cm.Data["cluster.hcl"] = `cluster "demo" { kubernetes_version = "1.31.4" }`
	must(t, e.c.Update(ctx, cm))
	second := e.newPlanJob(t, ns, e.planJobs(t, ns))
	if second == first || !strings.HasPrefix(second, "demo-plan-g1-") {
		t.Fatalf("the plan after the ConfigMap's edit is %s (first %s)", second, first)
	}
	e.finishPlan(t, ns, second, "cm2", 3)
	consistently(t, 2*time.Second, func() (bool, string) {
		p := e.planJobs(t, ns)
		return len(p) == 2, "plan Jobs after one edit: " + names(p)
	})
	if c := e.cluster(t, ns); c.Status.ObservedGeneration != 1 || !isTrue(c, v1alpha1.ConditionApprovalPending) {
		t.Fatalf("after the ConfigMap's edit: observedGeneration %d, ApprovalPending %v", c.Status.ObservedGeneration, condition(c, v1alpha1.ConditionApprovalPending))
	}
}

// testPlanRequest: after a failed apply nothing runs until asked; the
// eggo.io/plan-requested annotation asks for a new plan of the unchanged
// spec (once per value), which Automatic approval then applies.
func (e *env) testPlanRequest(t *testing.T) {
	ns := "plan-request"
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Approval = v1alpha1.ApprovalAutomatic })
	h := e.plan(t, ns, 1, "try1", 4)
	e.waitJob(t, ns, applyJob(h))
	e.failPod(t, ns, applyJob(h), "Error: host.w0: connect: no route to host")
	e.finishJob(t, ns, applyJob(h), false)
	eventually(t, 10*time.Second, func() (bool, string) {
		return conditionIs(e.cluster(t, ns), v1alpha1.ConditionFailed, metav1.ConditionTrue)
	})
	seen := e.planJobs(t, ns)
	consistently(t, 2*time.Second, func() (bool, string) {
		p := e.planJobs(t, ns)
		return len(p) == 1, "plan Jobs after a failed apply, before any request: " + names(p)
	})
	e.annotate(t, ns, v1alpha1.PlanRequestAnnotation, "2026-11-27T15:00:00Z")
	again := e.newPlanJob(t, ns, seen)
	if j := e.planJobs(t, ns)[again]; j.Annotations[v1alpha1.AnnotationPlanRequest] != "2026-11-27T15:00:00Z" {
		t.Fatalf("plan Job %s annotations %v: want the request", again, j.Annotations)
	}
	h2 := e.finishPlan(t, ns, again, "try2", 1)
	e.waitJob(t, ns, applyJob(h2)) // Automatic: the new plan is applied
	e.finishJob(t, ns, applyJob(h2), true)
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		if c.Status.LastAppliedPlanHash != h2 || c.Status.ObservedPlanRequest != "2026-11-27T15:00:00Z" {
			return false, "lastAppliedPlanHash " + c.Status.LastAppliedPlanHash + " observedPlanRequest " + c.Status.ObservedPlanRequest
		}
		return conditionIs(c, v1alpha1.ConditionReady, metav1.ConditionTrue)
	})
	consistently(t, 2*time.Second, func() (bool, string) {
		p := e.planJobs(t, ns)
		return len(p) == 2, "plan Jobs after one request: " + names(p)
	})
}
