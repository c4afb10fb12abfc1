package controller_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
)

// No job controller or kubelet runs on the test's API server: the test
// plays them, ending a Job as the job controller would.

// finishJob sets the Job's status as the job controller does when its pod
// succeeded (or failed).
func (e *env) finishJob(t *testing.T, ns, name string, ok bool) {
	t.Helper()
	ctx := context.Background()
	var j batchv1.Job
	must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &j))
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	start := metav1.NewTime(now.Add(-time.Minute))
	j.Status.StartTime = &start
	if ok {
		j.Status.Succeeded = 1
		j.Status.CompletionTime = &now
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
		}
	} else {
		j.Status.Failed = 1
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now, LastProbeTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now, LastProbeTime: now},
		}
	}
	must(t, e.c.Status().Update(ctx, &j))
}

// failPod makes the Job's pod, terminated with message as the kubelet
// reports it (the termination message, or the log's end under
// FallbackToLogsOnError).
func (e *env) failPod(t *testing.T, ns, job, message string) {
	t.Helper()
	ctx := context.Background()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: job + "-x1", Namespace: ns, Labels: map[string]string{batchv1.JobNameLabel: job}},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "eggo", Image: "eggo:test"}}},
	}
	must(t, e.c.Create(ctx, p))
	p.Status.Phase = corev1.PodFailed
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "eggo", Image: "eggo:test", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: message},
	}}}
	must(t, e.c.Status().Update(ctx, p))
}

// publishPlan does what the plan Job's command does once eggo plan has
// run: it publishes a saved plan (made up here: the content differs with
// tag) through jobrun.Publish, the command's own code, and returns its
// hash.
func (e *env) publishPlan(t *testing.T, c *v1alpha1.EggoCluster, job, tag string, add int) string {
	t.Helper()
	saved := []byte("saved plan " + tag + " of " + c.Namespace)
	sum := sha256.Sum256(saved)
	hash := hex.EncodeToString(sum[:])
	o := e.jobOptions(t, c, job)
	p := jobrun.Plan{
		Hash: hash, Saved: saved, Config: []byte("configuration " + tag), Text: "Plan: " + tag,
		Summary: v1alpha1.PlanSummary{Add: add, Nodes: []v1alpha1.NodePlan{{Name: "w0", Operations: []string{"create host.w0"}}},
			Hooks: []string{`hook.prepare["w0"]`}},
	}
	must(t, jobrun.Publish(o, p))
	must(t, jobrun.WriteNodes(o, []v1alpha1.NodeStatus{})) // as the command does after every run
	return hash
}

// planJob waits until the plan Job of generation gen exists, and that no
// other Job runs.
func (e *env) waitJob(t *testing.T, ns, name string) batchv1.Job {
	t.Helper()
	var j batchv1.Job
	eventually(t, 20*time.Second, func() (bool, string) {
		jobs := e.jobs(t, ns)
		var ok bool
		j, ok = jobs[name]
		return ok, "no job " + name + "; jobs: " + names(jobs)
	})
	return j
}

// publishAccess does what a successful apply Job's command does once eggo
// apply has written the admin kubeconfig: it publishes it and the CA
// certificate through jobrun.PublishAccess, the command's own code. The
// kubeconfig holds testAdminKey, as eggo's holds the admin key.
func (e *env) publishAccess(t *testing.T, ns, job string) {
	t.Helper()
	c := e.cluster(t, ns)
	o := e.jobOptions(t, c, job)
	must(t, jobrun.PublishAccess(o, jobrun.Access{Kubeconfig: []byte(adminKubeconfig()), CACert: []byte(testCACert)}))
}

const testCACert = "-----BEGIN CERTIFICATE-----\nTESTCACERT\n-----END CERTIFICATE-----\n"

func adminKubeconfig() string {
	b64 := base64.StdEncoding.EncodeToString
	return "apiVersion: v1\nkind: Config\nclusters:\n- name: demo\n  cluster: {server: \"https://192.0.2.10:6443\", certificate-authority-data: " +
		b64([]byte(testCACert)) + "}\nusers:\n- name: kubernetes-admin\n  user: {client-certificate-data: Y2VydA==, client-key-data: " +
		b64([]byte(testAdminKey)) + "}\ncontexts:\n- name: demo\n  context: {cluster: demo, user: kubernetes-admin}\ncurrent-context: demo\n"
}

// jobOptions are the job command's options of the Job job as the
// controller made it: its state namespace is the one the Job names.
func (e *env) jobOptions(t *testing.T, c *v1alpha1.EggoCluster, job string) jobrun.Options {
	t.Helper()
	var j batchv1.Job
	must(t, e.c.Get(context.Background(), client.ObjectKey{Namespace: c.Namespace, Name: job}, &j))
	return jobrun.Options{Namespace: c.Namespace, StateNamespace: j.Annotations[v1alpha1.AnnotationStateNamespace],
		Cluster: c.Name, ClusterUID: string(c.UID), Job: job, Kubeconfig: e.api.Kubeconfig}
}
