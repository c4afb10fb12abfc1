package controller_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

func (e *env) gone(t *testing.T, ns string) {
	t.Helper()
	eventually(t, 10*time.Second, func() (bool, string) {
		var c v1alpha1.EggoCluster
		err := e.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "demo"}, &c)
		return apierrors.IsNotFound(err), "the EggoCluster is still there: finalizers " + strings.Join(c.Finalizers, ",")
	})
}

func (e *env) testDestroyOnDelete(t *testing.T) {
	ns := "destroy-on-delete"
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Approval = v1alpha1.ApprovalAutomatic })
	h := e.plan(t, ns, 1, "d", 1)
	e.waitJob(t, ns, applyJob(h))
	e.publishAccess(t, ns, applyJob(h))
	e.finishJob(t, ns, applyJob(h), true)
	eventually(t, 10*time.Second, func() (bool, string) {
		return conditionIs(e.cluster(t, ns), v1alpha1.ConditionReady, "True")
	})
	must(t, e.c.Delete(context.Background(), e.cluster(t, ns)))
	j := e.waitJob(t, ns, "demo-destroy")
	if j.Spec.Template.Spec.Containers[0].Command[2] != "destroy" {
		t.Fatalf("destroy job runs %q", j.Spec.Template.Spec.Containers[0].Command)
	}
	consistently(t, 2*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		return len(c.Finalizers) == 1, "the finalizer went before the destroy Job ended"
	})
	e.finishJob(t, ns, "demo-destroy", true)
	e.gone(t, ns)
}

// testOrphan: deletionPolicy Orphan destroys nothing; once the plan Job
// running ends, a release Job (no key, bundle or configuration mounted)
// deletes what the Jobs left in the state namespace, and the finalizer
// goes when it ends.
func (e *env) testOrphan(t *testing.T) {
	ns := orphanNS
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.DeletionPolicy = v1alpha1.DeletionOrphan })
	e.waitJob(t, ns, "demo-plan-g1")
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		return len(c.Finalizers) == 1, "no finalizer yet"
	})
	must(t, e.c.Delete(context.Background(), e.cluster(t, ns)))
	consistently(t, 2*time.Second, func() (bool, string) {
		_, ok := e.jobs(t, ns)["demo-release"]
		return !ok, "the release Job started while the plan Job runs"
	})
	e.finishJob(t, ns, "demo-plan-g1", false)
	j := e.waitJob(t, ns, "demo-release")
	c := j.Spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	if c.Command[2] != "release" || !strings.Contains(args, "-state-namespace="+orphanStateNS) || len(j.Spec.Template.Spec.Volumes) != 1 {
		t.Fatalf("release job runs %q %q with volumes %v: want release in %s, the work directory alone", c.Command, args,
			j.Spec.Template.Spec.Volumes, orphanStateNS)
	}
	consistently(t, 2*time.Second, func() (bool, string) {
		return len(e.cluster(t, ns).Finalizers) == 1, "the finalizer went before the release Job ended"
	})
	e.finishJob(t, ns, "demo-release", true)
	e.gone(t, ns)
	for name := range e.jobs(t, ns) {
		if strings.Contains(name, "destroy") {
			t.Fatalf("Orphan started %s", name)
		}
	}
}

// testNeverApplied: deleting an EggoCluster that never ran an apply
// destroys nothing, whatever its policy.
func (e *env) testNeverApplied(t *testing.T) {
	ns := "never-applied"
	e.newCluster(t, ns, nil)
	e.plan(t, ns, 1, "unapproved", 2)
	must(t, e.c.Delete(context.Background(), e.cluster(t, ns)))
	e.gone(t, ns)
	if jobs := e.jobs(t, ns); len(jobs) != 1 {
		t.Fatalf("jobs %s: want the plan alone", names(jobs))
	}
}

// testJobSpecs checks every Job the other subtests made, then scans the
// Jobs, EggoClusters, ConfigMaps and the controller's log for the test's
// key and identity.
func (e *env) testNoCredentialLeaks(t *testing.T) {
	ctx := context.Background()
	var jobs batchv1.JobList
	must(t, e.c.List(ctx, &jobs))
	if len(jobs.Items) < 8 {
		t.Fatalf("only %d jobs to check", len(jobs.Items))
	}
	for _, j := range jobs.Items {
		checkJob(t, &j)
	}
	e.jobPodIsRestricted(t, &jobs.Items[0])
	var clusters v1alpha1.EggoClusterList
	var cms corev1.ConfigMapList
	var events corev1.EventList
	must(t, e.c.List(ctx, &clusters))
	must(t, e.c.List(ctx, &cms))
	must(t, e.c.List(ctx, &events))
	if !strings.Contains(fmt.Sprint(events.Items), "JobFailed") {
		t.Fatalf("no JobFailed event among %d events: the scan would miss them", len(events.Items))
	}
	// The admin kubeconfig was published (so a leak of it could be seen),
	// in its Secret only; the CA Secret holds no key.
	var secrets corev1.SecretList
	must(t, e.c.List(ctx, &secrets, client.MatchingLabels{v1alpha1.LabelContent: "kubeconfig"}))
	if len(secrets.Items) == 0 || !strings.Contains(string(secrets.Items[0].Data[v1alpha1.KubeconfigKey]), "client-key-data") {
		t.Fatalf("%d kubeconfig Secrets published: the scan would miss the admin key", len(secrets.Items))
	}
	var cas corev1.SecretList
	must(t, e.c.List(ctx, &cas, client.MatchingLabels{v1alpha1.LabelContent: "ca"}))
	if len(cas.Items) == 0 {
		t.Fatal("no CA Secret published")
	}
	for name, obj := range map[string]any{"jobs": jobs, "EggoClusters": clusters, "ConfigMaps": cms, "Events": events, "CA Secrets": cas} {
		data, err := json.Marshal(obj)
		must(t, err)
		scan(t, name, string(data))
	}
	if !strings.Contains(e.log.String(), "demo") {
		t.Fatalf("the controller's log says nothing of the clusters: the scan would see nothing")
	}
	scan(t, "the controller's log", e.log.String())
}

func scan(t *testing.T, where, text string) {
	t.Helper()
	adminKey := base64.StdEncoding.EncodeToString([]byte(testAdminKey))
	for _, secret := range []string{"PRIVATE KEY", "testKEYsecret0123456789", testIdentity, "TESTIDENTITYTOKEN",
		"ADMINKEYsecret", adminKey[:40], "client-key-data"} {
		if strings.Contains(text, secret) {
			t.Errorf("%s hold %q", where, secret)
		}
	}
}

// testDestroyRetry: a failed destroy keeps the EggoCluster (Failed); a new
// eggo.io/plan-requested value starts a new destroy Job, whose success
// lets it go.
func (e *env) testDestroyRetry(t *testing.T) {
	ns := "destroy-retry"
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Approval = v1alpha1.ApprovalAutomatic })
	h := e.plan(t, ns, 1, "r", 1)
	e.waitJob(t, ns, applyJob(h))
	e.finishJob(t, ns, applyJob(h), true)
	eventually(t, 10*time.Second, func() (bool, string) {
		return conditionIs(e.cluster(t, ns), v1alpha1.ConditionReady, "True")
	})
	must(t, e.c.Delete(context.Background(), e.cluster(t, ns)))
	e.waitJob(t, ns, "demo-destroy")
	e.failPod(t, ns, "demo-destroy", "Error: host.w0: unreachable")
	e.finishJob(t, ns, "demo-destroy", false)
	eventually(t, 10*time.Second, func() (bool, string) {
		return conditionIs(e.cluster(t, ns), v1alpha1.ConditionFailed, "True")
	})
	consistently(t, 2*time.Second, func() (bool, string) {
		jobs := e.jobs(t, ns)
		return len(jobs) == 3 && len(e.cluster(t, ns).Finalizers) == 1, "after the failed destroy: jobs " + names(jobs)
	})
	e.annotate(t, ns, v1alpha1.PlanRequestAnnotation, "retry-1")
	var retry string
	eventually(t, 20*time.Second, func() (bool, string) {
		for name, j := range e.jobs(t, ns) {
			if j.Labels[v1alpha1.LabelPhase] == v1alpha1.PhaseDestroy && name != "demo-destroy" {
				retry = name
				return true, ""
			}
		}
		return false, "no second destroy Job: " + names(e.jobs(t, ns))
	})
	e.finishJob(t, ns, retry, true)
	e.gone(t, ns)
}
