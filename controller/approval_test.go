package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
)

func (e *env) testManualApproval(t *testing.T) {
	ns := approvalNS
	e.newCluster(t, ns, nil)
	h1 := e.plan(t, ns, 1, "first", 2)
	eventually(t, 10*time.Second, func() (bool, string) {
		return conditionIs(e.cluster(t, ns), v1alpha1.ConditionApprovalPending, metav1.ConditionTrue)
	})
	c := e.cluster(t, ns)
	if ok, why := conditionIs(c, v1alpha1.ConditionPlanned, metav1.ConditionTrue); !ok {
		t.Fatal(why)
	}
	if s := c.Status.PlanSummary; s == nil || s.Add != 2 || len(s.Nodes) != 1 || len(s.Hooks) != 1 ||
		c.Status.PlanRef != v1alpha1.PlanObjectName("demo", h1) {
		t.Fatalf("plan summary %+v, planRef %q", s, c.Status.PlanRef)
	}
	e.noApplyJob(t, ns)
	// A wrong hash, and a prefix of the right one, approve nothing.
	for _, wrong := range []string{strings.Repeat("0", 64), h1[:12]} {
		e.approve(t, ns, wrong)
		e.noApplyJob(t, ns)
	}
	e.approve(t, ns, h1)
	j := e.waitJob(t, ns, applyJob(h1))
	args := strings.Join(j.Spec.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(args, "-plan-hash="+h1) || j.Spec.Template.Spec.Containers[0].Command[2] != "apply" {
		t.Fatalf("apply job runs %q %q, want apply of plan %s", j.Spec.Template.Spec.Containers[0].Command, args, h1)
	}
	// The saved plan is in the state namespace the policy gives ns, which
	// the Job reads through the API: a pod mounts no other namespace's
	// Secret.
	if !strings.Contains(args, "-state-namespace="+approvalStateNS) || hasVolume(j, "plan") {
		t.Fatalf("apply job args %q, volumes %v: want the state namespace %s named, no plan mounted", args, j.Spec.Template.Spec.Volumes, approvalStateNS)
	}
	if c := e.cluster(t, ns); c.Status.StateNamespace != approvalStateNS {
		t.Fatalf("status.stateNamespace %q, want %s", c.Status.StateNamespace, approvalStateNS)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		if isTrue(c, v1alpha1.ConditionReady) {
			return false, "Ready while the apply Job runs"
		}
		return conditionIs(c, v1alpha1.ConditionApplying, metav1.ConditionTrue)
	})
	e.publishAccess(t, ns, applyJob(h1))
	e.finishJob(t, ns, applyJob(h1), true)
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		if c.Status.LastAppliedPlanHash != h1 || c.Status.ActiveJob != "" {
			return false, fmt.Sprintf("lastAppliedPlanHash %q activeJob %q", c.Status.LastAppliedPlanHash, c.Status.ActiveJob)
		}
		return conditionIs(c, v1alpha1.ConditionReady, metav1.ConditionTrue)
	})
	e.oldApprovalDoesNotApplyANewPlan(t, ns, h1)
}

// oldApprovalDoesNotApplyANewPlan: a spec change after approval makes a
// new plan, and the annotation naming the old one does not approve it.
func (e *env) oldApprovalDoesNotApplyANewPlan(t *testing.T, ns, h1 string) {
	e.edit(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Variables["workers"] = "3" })
	h2 := e.plan(t, ns, 2, "second", 1)
	if h2 == h1 {
		t.Fatal("the test's two plans have one hash")
	}
	e.noApplyJob2(t, ns, h2)
	c := e.cluster(t, ns)
	if ok, why := conditionIs(c, v1alpha1.ConditionApprovalPending, metav1.ConditionTrue); !ok {
		t.Fatal(why)
	}
	if c.Annotations[v1alpha1.ApproveAnnotation] != h1 || c.Status.LastAppliedPlanHash != h1 {
		t.Fatalf("annotation %q, lastAppliedPlanHash %q", c.Annotations[v1alpha1.ApproveAnnotation], c.Status.LastAppliedPlanHash)
	}
}

func (e *env) noApplyJob2(t *testing.T, ns, hash string) {
	t.Helper()
	consistently(t, 2*time.Second, func() (bool, string) {
		_, ok := e.jobs(t, ns)[applyJob(hash)]
		return !ok, "plan " + hash[:12] + " was applied under an older plan's approval"
	})
}

func (e *env) testApplyFailure(t *testing.T) {
	ns := "apply-failure"
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Approval = v1alpha1.ApprovalAutomatic })
	h := e.plan(t, ns, 1, "auto", 4)
	e.waitJob(t, ns, applyJob(h)) // Automatic: no annotation needed
	msg := "Error: host.w0: dial tcp 10.77.0.21:22: connect: no route to host"
	e.failPod(t, ns, applyJob(h), msg)
	// What the apply Job's command publishes after eggo apply, failed or not.
	c := e.cluster(t, ns)
	nodes := []v1alpha1.NodeStatus{{Name: "m0", State: "Applied (14 resources)"}, {Name: "w0", State: "Pending (1 of 3 resources pending)"}}
	must(t, jobrun.WriteNodes(jobrun.Options{Namespace: ns, Cluster: "demo", ClusterUID: string(c.UID), Job: applyJob(h), Kubeconfig: e.api.Kubeconfig}, nodes))
	e.finishJob(t, ns, applyJob(h), false)
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		if !strings.Contains(c.Status.LastFailure, msg) {
			return false, "lastFailure = " + c.Status.LastFailure
		}
		if isTrue(c, v1alpha1.ConditionReady) || isTrue(c, v1alpha1.ConditionApplying) {
			return false, "Ready or Applying after a failed apply"
		}
		return conditionIs(c, v1alpha1.ConditionFailed, metav1.ConditionTrue)
	})
	consistently(t, 2*time.Second, func() (bool, string) {
		jobs := e.jobs(t, ns)
		return len(jobs) == 2, "after the failed apply: jobs " + names(jobs) + " (a failed plan is not applied again)"
	})
	c = e.cluster(t, ns)
	if c.Status.LastAppliedPlanHash != "" {
		t.Fatalf("lastAppliedPlanHash %q after a failed apply", c.Status.LastAppliedPlanHash)
	}
	if fmt.Sprint(c.Status.Nodes) != fmt.Sprint(nodes) {
		t.Fatalf("status.nodes %v, want what the Job published: %v", c.Status.Nodes, nodes)
	}
}

// testCRDValidation: the API server itself refuses a config with both or
// neither source, an unknown approval policy, a bundle volume of another
// type or of two types, and a bundle path that climbs out of its volume.
func (e *env) testCRDValidation(t *testing.T) {
	ns := e.api.Namespace(t, "crd-validation")
	hcl := "cluster \"x\" {}"
	base := v1alpha1.EggoClusterSpec{
		Bundle:          v1alpha1.BundleSource{Volume: pvcBundle()},
		SSHKeySecretRef: corev1.LocalObjectReference{Name: "ssh"},
	}
	for name, edit := range map[string]func(*v1alpha1.EggoClusterSpec){
		"both": func(s *v1alpha1.EggoClusterSpec) {
			s.Config = v1alpha1.ConfigSource{Inline: &hcl, ConfigMapRef: &v1alpha1.ConfigMapKeyRef{Name: "a", Key: "b"}}
		},
		"neither":  func(s *v1alpha1.EggoClusterSpec) { s.Config = v1alpha1.ConfigSource{} },
		"approval": func(s *v1alpha1.EggoClusterSpec) { s.Config.Inline = &hcl; s.Approval = "Sometimes" },
		"two-volumes": func(s *v1alpha1.EggoClusterSpec) {
			s.Config.Inline = &hcl
			s.Bundle.Volume.Image = &corev1.ImageVolumeSource{Reference: "bundle:1"}
		},
		"dotdot":   func(s *v1alpha1.EggoClusterSpec) { s.Config.Inline = &hcl; s.Bundle.Path = "v1/../../../run/eggo/ssh" },
		"absolute": func(s *v1alpha1.EggoClusterSpec) { s.Config.Inline = &hcl; s.Bundle.Path = "/var/run/eggo/ssh" },
	} {
		spec := base
		spec.Bundle.Volume = pvcBundle()
		edit(&spec)
		c := &v1alpha1.EggoCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}
		if err := e.c.Create(context.Background(), c); err == nil {
			t.Errorf("%s: the API server accepted %+v", name, spec)
		}
	}
	// A volume type the Go type has no field for (written as a user
	// would in YAML): refused, not silently dropped into "no volume".
	u := unstructuredCluster(t, ns, "emptydir", map[string]any{"emptyDir": map[string]any{}})
	if err := e.c.Create(context.Background(), u); err == nil || !strings.Contains(err.Error(), "exactly one of persistentVolumeClaim") {
		t.Errorf("an emptyDir bundle volume: %v, want refused naming the volume types", err)
	}
	spec := base
	spec.Config.Inline = &hcl
	c := &v1alpha1.EggoCluster{ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: ns}, Spec: spec}
	must(t, e.c.Create(context.Background(), c))
	if c.Spec.Approval != v1alpha1.ApprovalManual || c.Spec.DeletionPolicy != v1alpha1.DeletionDestroy {
		t.Fatalf("defaults: approval %q deletionPolicy %q, want Manual and Destroy", c.Spec.Approval, c.Spec.DeletionPolicy)
	}
}

// unstructuredCluster is an EggoCluster written as plain data, its bundle
// volume as given.
func unstructuredCluster(t *testing.T, ns, name string, volume map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(), "kind": "EggoCluster",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"config":          map[string]any{"inline": "cluster \"x\" {}"},
			"bundle":          map[string]any{"volume": volume},
			"sshKeySecretRef": map[string]any{"name": "ssh"},
		},
	}}
}

// testApplyPodGone: an apply Job whose pod was deleted midway (nothing
// said why) is Failed with a message that says so, not only the Job's
// "backoff limit".
func (e *env) testApplyPodGone(t *testing.T) {
	ns := "apply-pod-gone"
	e.newCluster(t, ns, func(c *v1alpha1.EggoCluster) { c.Spec.Approval = v1alpha1.ApprovalAutomatic })
	h := e.plan(t, ns, 1, "auto", 4)
	e.waitJob(t, ns, applyJob(h))
	e.finishJob(t, ns, applyJob(h), false) // no pod: deleted before the controller looked
	eventually(t, 10*time.Second, func() (bool, string) {
		c := e.cluster(t, ns)
		if !strings.Contains(c.Status.LastFailure, "its pod is gone") || !strings.Contains(c.Status.LastFailure, "BackoffLimitExceeded") {
			return false, "lastFailure = " + c.Status.LastFailure
		}
		return conditionIs(c, v1alpha1.ConditionFailed, metav1.ConditionTrue)
	})
}
