package controller_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
)

// checkJob: Secrets mounted read-only (volume and mount), bounds set,
// owned by its EggoCluster, labelled, no value in the environment, the
// termination message falling back to the log.
func checkJob(t *testing.T, j *batchv1.Job) {
	t.Helper()
	s := j.Spec
	if s.BackoffLimit == nil || s.ActiveDeadlineSeconds == nil || s.TTLSecondsAfterFinished == nil {
		t.Errorf("%s: backoffLimit %v, activeDeadlineSeconds %v, ttlSecondsAfterFinished %v: all must be set",
			j.Name, s.BackoffLimit, s.ActiveDeadlineSeconds, s.TTLSecondsAfterFinished)
	}
	if len(j.OwnerReferences) != 1 || j.OwnerReferences[0].Kind != "EggoCluster" || j.OwnerReferences[0].Controller == nil {
		t.Errorf("%s: owner references %+v", j.Name, j.OwnerReferences)
	}
	if j.Labels[v1alpha1.LabelCluster] != "demo" || j.Labels[v1alpha1.LabelPhase] == "" {
		t.Errorf("%s: labels %v", j.Name, j.Labels)
	}
	pod := s.Template.Spec
	secrets := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = true
			if v.Secret.DefaultMode == nil || *v.Secret.DefaultMode&0o077 != 0 {
				t.Errorf("%s: Secret volume %s readable by others", j.Name, v.Name)
			}
		}
	}
	// A release Job runs no eggo: it mounts no Secret at all.
	release := j.Labels[v1alpha1.LabelPhase] == v1alpha1.PhaseRelease
	if release && len(secrets) > 0 || !release && (!secrets["ssh"] || !secrets["identity"]) {
		t.Errorf("%s: Secret volumes %v, want ssh and identity (a release Job: none)", j.Name, secrets)
	}
	c := pod.Containers[0]
	for _, m := range c.VolumeMounts {
		if secrets[m.Name] && !m.ReadOnly {
			t.Errorf("%s: Secret %s mounted writable", j.Name, m.Name)
		}
	}
	if len(c.Env) != 0 || len(c.EnvFrom) != 0 {
		t.Errorf("%s: environment %v %v: the Job gets paths in its arguments, nothing in its environment", j.Name, c.Env, c.EnvFrom)
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: terminationMessagePolicy %q restartPolicy %q", j.Name, c.TerminationMessagePolicy, pod.RestartPolicy)
	}
	// eggo's image runs as nonroot 65532: the Secrets' files reach it
	// through the fsGroup.
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil ||
		*sc.RunAsUser != 65532 || sc.FSGroup == nil || *sc.FSGroup != 65532 {
		t.Errorf("%s: pod security %+v: want non-root 65532 with fsGroup 65532", j.Name, sc)
	}
	if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
		t.Errorf("%s: the container may escalate its privileges", j.Name)
	}
	if !release && !strings.Contains(strings.Join(c.Args, " "), "-identity="+v1alpha1.MountIdentity+"/") {
		t.Errorf("%s: args %q do not name the identity's path", j.Name, c.Args)
	}
	// Confined: the configuration reads none of the mounted Secrets and
	// runs nothing in the Job's container; the job command parses its
	// arguments as given (it refuses to run without -confine-files).
	if !slices.Contains(c.Args, "-confine-files") {
		t.Errorf("%s: args %q do not confine the configuration (-confine-files)", j.Name, c.Args)
	}
	if len(c.Command) != 3 || c.Command[1] != "job" {
		t.Errorf("%s: command %q", j.Name, c.Command)
	} else if _, err := jobrun.Parse(append([]string{c.Command[2]}, c.Args...)); err != nil {
		t.Errorf("%s: the job command refuses its arguments: %v", j.Name, err)
	}
}

func hasVolume(j batchv1.Job, name string) bool {
	for _, v := range j.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

// jobPodIsRestricted: a Job's pod is admitted (a dry run) in a namespace
// enforcing the restricted Pod Security level: what the controller sets
// (user, group, capabilities, seccomp, the Secrets' volumes) passes.
func (e *env) jobPodIsRestricted(t *testing.T, j *batchv1.Job) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restricted-jobs",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
	must(t, e.c.Create(ctx, ns))
	must(t, e.c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: j.Spec.Template.Spec.ServiceAccountName, Namespace: ns.Name}}))
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: j.Name, Namespace: ns.Name}, Spec: *j.Spec.Template.Spec.DeepCopy()}
	// The bundle's volume is the EggoCluster's choice (the tests' is a
	// hostPath, which restricted refuses): a claim stands in for it.
	for i, v := range p.Spec.Volumes {
		if v.HostPath != nil {
			p.Spec.Volumes[i].VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "bundle", ReadOnly: true}}
		}
	}
	if err := e.c.Create(ctx, p, client.DryRunAll); err != nil {
		t.Errorf("%s's pod is refused under Pod Security restricted: %v", j.Name, err)
	}
}
