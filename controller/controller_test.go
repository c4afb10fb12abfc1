package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// TestController runs the controller against a real kube-apiserver
// (internal/harness/apitest) and plays the Jobs' outcomes as the job controller
// and the Jobs' command would.
func TestController(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	e := startEnv(t)
	t.Run("the CRD refuses a bad spec and defaults the policies", e.testCRDValidation)
	t.Run("one plan Job per generation, never two at once", e.testPlanPerGeneration)
	t.Run("manual approval needs exactly the plan's hash", e.testManualApproval)
	t.Run("a failed apply is Failed and not Ready", e.testApplyFailure)
	t.Run("an apply whose pod is gone says so", e.testApplyPodGone)
	t.Run("an edit of a referenced ConfigMap plans again", e.testConfigMapEdit)
	t.Run("eggo.io/plan-requested plans an unchanged spec again", e.testPlanRequest)
	t.Run("an EggoCluster's writer gets only what the admin allowed", e.testAdmission)
	t.Run("additional SSH key Secrets opt in and are mounted each at its path", e.testAdditionalSSHKeys)
	t.Run("deletion runs a destroy Job behind the finalizer", e.testDestroyOnDelete)
	t.Run("a failed destroy runs again when asked", e.testDestroyRetry)
	t.Run("deletionPolicy Orphan lets go without a Job", e.testOrphan)
	t.Run("deleting a never applied cluster destroys nothing", e.testNeverApplied)
	t.Run("no credential in a Job, the EggoCluster, a ConfigMap or the log", e.testNoCredentialLeaks)
}

func condition(c *v1alpha1.EggoCluster, typ string) metav1.Condition {
	if p := meta.FindStatusCondition(c.Status.Conditions, typ); p != nil {
		return *p
	}
	return metav1.Condition{Type: typ, Status: "Unknown"}
}

func conditionIs(c *v1alpha1.EggoCluster, typ string, status metav1.ConditionStatus) (bool, string) {
	got := condition(c, typ)
	return got.Status == status, fmt.Sprintf("%s = %s (%s: %s), want %s; status %+v", typ, got.Status, got.Reason, got.Message, status, c.Status)
}

func (e *env) testPlanPerGeneration(t *testing.T) {
	ns := "plan-per-generation"
	c := e.newCluster(t, ns, nil)
	e.waitJob(t, ns, "demo-plan-g1")
	// A second spec change while the plan runs: no second Job.
	e.edit(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Variables["workers"] = "2" })
	c = e.cluster(t, ns)
	consistently(t, 2*time.Second, func() (bool, string) {
		jobs := e.jobs(t, ns)
		return len(jobs) == 1, "jobs while plan g1 runs: " + names(jobs)
	})
	if got := e.cluster(t, ns); got.Status.ActiveJob != "demo-plan-g1" || isTrue(got, v1alpha1.ConditionReady) {
		t.Fatalf("while planning: activeJob %q, Ready %v", got.Status.ActiveJob, condition(got, v1alpha1.ConditionReady))
	}
	// Plan g1 ends: its plan is recorded, then generation 2 is planned.
	e.publishPlan(t, c, "demo-plan-g1", "g1", 3)
	e.finishJob(t, ns, "demo-plan-g1", true)
	j := e.waitJob(t, ns, "demo-plan-g2")
	if !strings.Contains(strings.Join(j.Spec.Template.Spec.Containers[0].Args, " "), "-var=workers=2") {
		t.Errorf("plan g2's args %q lack the new variable", j.Spec.Template.Spec.Containers[0].Args)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		got := e.cluster(t, ns)
		return got.Status.ObservedGeneration == 1 && got.Status.ActiveJob == "demo-plan-g2",
			fmt.Sprintf("observedGeneration %d, activeJob %q", got.Status.ObservedGeneration, got.Status.ActiveJob)
	})
	if jobs := e.jobs(t, ns); len(jobs) != 2 {
		t.Fatalf("jobs %s: want the two plans only (no apply of generation 1's plan under Manual approval)", names(jobs))
	}
}

func isTrue(c *v1alpha1.EggoCluster, typ string) bool {
	return meta.IsStatusConditionTrue(c.Status.Conditions, typ)
}

// plan runs a plan Job for the cluster's current generation to success
// and returns the plan's hash.
func (e *env) plan(t *testing.T, ns string, gen int64, tag string, add int) string {
	t.Helper()
	job := fmt.Sprintf("demo-plan-g%d", gen)
	e.waitJob(t, ns, job)
	hash := e.publishPlan(t, e.cluster(t, ns), job, tag, add)
	e.finishJob(t, ns, job, true)
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		return c.Status.LastPlanHash == hash && c.Status.ObservedGeneration == gen,
			fmt.Sprintf("lastPlanHash %q observedGeneration %d, want %s, %d", c.Status.LastPlanHash, c.Status.ObservedGeneration, hash, gen)
	})
	return hash
}

func (e *env) approve(t *testing.T, ns, hash string) {
	t.Helper()
	e.annotate(t, ns, v1alpha1.ApproveAnnotation, hash)
}

func applyJob(hash string) string { return "demo-apply-" + hash[:12] }

func (e *env) noApplyJob(t *testing.T, ns string) {
	t.Helper()
	consistently(t, 2*time.Second, func() (bool, string) {
		for name := range e.jobs(t, ns) {
			if strings.Contains(name, "-apply-") {
				return false, "an apply Job started without approval: " + name
			}
		}
		return true, ""
	})
}
