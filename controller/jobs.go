package controller

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// outcome of a Job as the job controller reports it.
type outcome int

const (
	running outcome = iota
	succeeded
	failed
)

func jobOutcome(j *batchv1.Job) outcome {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return succeeded
		case batchv1.JobFailed:
			return failed
		}
	}
	return running
}

// clusterJobs lists the cluster's Jobs from the API server itself, not the
// cache: a Job created a moment ago must be seen, or a second one could
// start.
func (r *Reconciler) clusterJobs(ctx context.Context, c *v1alpha1.EggoCluster) ([]batchv1.Job, error) {
	var list batchv1.JobList
	err := r.APIReader.List(ctx, &list, client.InNamespace(c.Namespace),
		client.MatchingLabels{v1alpha1.LabelCluster: c.Name})
	if err != nil {
		return nil, err
	}
	var own []batchv1.Job
	for _, j := range list.Items {
		if metav1.IsControlledBy(&j, c) {
			own = append(own, j)
		}
	}
	sort.Slice(own, func(a, b int) bool { return own[a].Name < own[b].Name })
	return own, nil
}

func activeJob(jobs []batchv1.Job) *batchv1.Job {
	for i := range jobs {
		if jobOutcome(&jobs[i]) == running {
			return &jobs[i]
		}
	}
	return nil
}

func findJob(jobs []batchv1.Job, name string) *batchv1.Job {
	for i := range jobs {
		if jobs[i].Name == name {
			return &jobs[i]
		}
	}
	return nil
}

// startJob creates the run's Job, owned by the cluster, once the spec
// passes every check (checkSpec) and an inline configuration is in its
// ConfigMap. A Job of that name already there is the same run: it is not
// started twice. A spec that fails a check is the run's failure
// (InvalidSpec, no Job: the name returned is ""), whatever the phase: an
// apply or destroy is refused as a plan is.
func (r *Reconciler) startJob(ctx context.Context, c *v1alpha1.EggoCluster, req jobRequest) (string, error) {
	p, msg := r.checkSpec(ctx, c, req.phase)
	if msg == "" && req.phase != v1alpha1.PhaseApply {
		var err error
		if msg, err = r.writeInlineConfig(ctx, c); err != nil {
			return "", err
		}
	}
	if msg != "" {
		markFailed(c, v1alpha1.ReasonInvalidSpec, msg)
		return "", nil
	}
	req.image = cmp.Or(c.Spec.Image, p.JobImage)
	req.stateNamespace = p.StateNamespace(c.Namespace)
	c.Status.StateNamespace = req.stateNamespace
	if err := r.createJob(ctx, c, req); err != nil {
		return "", err
	}
	return jobName(c, req), nil
}

// createJob creates the Job of req, controlled by the cluster, and marks
// it running; one of its name already there is the same run.
func (r *Reconciler) createJob(ctx context.Context, c *v1alpha1.EggoCluster, req jobRequest) error {
	j := buildJob(c, req)
	if err := controllerutil.SetControllerReference(c, j, r.Scheme); err != nil {
		return err
	}
	err := r.Create(ctx, j)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating job %s: %w", j.Name, err)
	}
	if err == nil {
		r.event(c, false, "JobStarted", "started "+req.phase+" job "+j.Name)
	}
	markRunning(c, req.phase, j.Name)
	return nil
}

// maxFailure bounds the failure message kept in the status.
const maxFailure = 4000

// failureMessage is what a failed Job says: its pods' termination
// messages (eggo's last lines, FallbackToLogsOnError), else the Job's
// Failed condition.
func (r *Reconciler) failureMessage(ctx context.Context, j *batchv1.Job) string {
	var pods corev1.PodList
	_ = r.APIReader.List(ctx, &pods, client.InNamespace(j.Namespace),
		client.MatchingLabels{batchv1.JobNameLabel: j.Name})
	var msgs, killed []string
	for _, p := range pods.Items {
		for _, s := range p.Status.ContainerStatuses {
			t := s.State.Terminated
			switch {
			case t == nil || t.ExitCode == 0:
			case t.Message != "":
				msgs = append(msgs, strings.TrimSpace(t.Message))
			default: // killed before eggo could say anything (OOM, SIGKILL)
				killed = append(killed, fmt.Sprintf("pod %s: container %s ended with exit code %d (%s)", p.Name, s.Name, t.ExitCode, t.Reason))
			}
		}
	}
	if len(msgs) == 0 {
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed {
				msgs = append(msgs, fmt.Sprintf("job %s failed: %s: %s", j.Name, c.Reason, c.Message))
			}
		}
		msgs = append(msgs, killed...)
		if len(pods.Items) == 0 {
			// Deleted, evicted, or its node lost: nothing says what eggo
			// did, but its state kept every operation that finished.
			msgs = append(msgs, "its pod is gone (deleted, evicted or its node lost) before it finished; "+
				"the state keeps what finished: annotate "+v1alpha1.PlanRequestAnnotation+" (or change the spec) to plan again")
		}
	}
	msg := strings.Join(msgs, "\n")
	if len(msg) > maxFailure {
		msg = "…" + msg[len(msg)-maxFailure:]
	}
	if msg == "" {
		msg = "job " + j.Name + " failed"
	}
	return msg
}
