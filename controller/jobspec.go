package controller

import (
	"fmt"
	"sort"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Defaults of spec.jobDefaults.
const (
	DefaultActiveDeadlineSeconds   int64 = 3600
	DefaultBackoffLimit            int32 = 0
	DefaultTTLSecondsAfterFinished int32 = 86400
	DefaultServiceAccount                = "eggo-job"
	readOnlyMode                   int32 = 0o400
)

// jobRequest is one run to start: its phase and, for apply, the plan.
type jobRequest struct {
	phase    string
	planHash string     // apply: the full hash of the plan it applies
	inputs   planInputs // plan: the referenced configuration and plan request it plans
	image    string     // the Job's image: spec.image, else the policy's jobImage
	// stateNamespace holds the state, the saved plans and the access
	// Secrets (the policy's StateNamespace).
	stateNamespace string
}

// jobName is deterministic, so that creating a Job twice for one run
// fails as AlreadyExists instead of starting a second Job: a plan per
// generation and inputs, an apply per plan, a destroy per request.
func jobName(c *v1alpha1.EggoCluster, r jobRequest) string {
	switch r.phase {
	case v1alpha1.PhasePlan:
		return fmt.Sprintf("%s-plan-g%d%s", c.Name, c.Generation, r.inputs.nameSuffix())
	case v1alpha1.PhaseApply:
		return fmt.Sprintf("%s-apply-%s", c.Name, r.planHash[:12])
	case v1alpha1.PhaseRelease:
		return c.Name + "-release"
	default:
		return c.Name + "-destroy" + r.inputs.nameSuffix()
	}
}

// buildJob is the Job of one run: eggo-controller's job command in eggo's
// image, every Secret mounted read-only, bounded in time and retries,
// labelled with its cluster and phase. The caller sets the owner.
func buildJob(c *v1alpha1.EggoCluster, r jobRequest) *batchv1.Job {
	name := jobName(c, r)
	labels := map[string]string{
		v1alpha1.LabelCluster:    c.Name,
		v1alpha1.LabelPhase:      r.phase,
		v1alpha1.LabelGeneration: strconv.FormatInt(c.Generation, 10),
	}
	annotations := map[string]string{v1alpha1.AnnotationStateNamespace: r.stateNamespace}
	if r.planHash != "" {
		annotations[v1alpha1.AnnotationPlanHash] = r.planHash
	}
	r.inputs.annotate(annotations)
	d := c.Spec.JobDefaults
	sa := c.Spec.ServiceAccountName
	if sa == "" {
		sa = DefaultServiceAccount
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, Labels: labels, Annotations: annotations},
		Spec: batchv1.JobSpec{
			ActiveDeadlineSeconds:   ptrOr(d.ActiveDeadlineSeconds, DefaultActiveDeadlineSeconds),
			BackoffLimit:            ptrOr(d.BackoffLimit, DefaultBackoffLimit),
			TTLSecondsAfterFinished: ptrOr(d.TTLSecondsAfterFinished, DefaultTTLSecondsAfterFinished),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: sa,
					SecurityContext:    podSecurity(),
					Containers: []corev1.Container{{
						Name:                     "eggo",
						Image:                    r.image,
						Command:                  []string{"eggo-controller", "job", r.phase},
						Args:                     jobArgs(c, r, name),
						VolumeMounts:             mounts(c, r),
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: volumes(c, r),
				},
			},
		},
	}
}

// ImageUser is the user of eggo's image (make eggo-image: nonroot,
// 65532), which a Job runs as.
const ImageUser int64 = 65532

// podSecurity runs a Job as eggo's image's user, non-root, with that
// user's group as the fsGroup: the kubelet gives the Secrets' files (mode
// 0400, root's) to the group, readable (0440), so the SSH key and the
// identity are readable by eggo and by no other user.
func podSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot: ptr(true), RunAsUser: ptr(ImageUser), RunAsGroup: ptr(ImageUser), FSGroup: ptr(ImageUser),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func ptr[T any](v T) *T { return &v }

// jobArgs name the cluster, the Job and the files; -var values are the
// spec's variables, which are not credentials. No key reaches an argument
// or the environment: only the paths of mounted Secrets. -confine-files
// keeps the configuration from reading them, or running anything in the
// Job's container (the job command refuses to run without it).
func jobArgs(c *v1alpha1.EggoCluster, r jobRequest, name string) []string {
	args := []string{
		"-namespace=" + c.Namespace, "-state-namespace=" + r.stateNamespace, "-cluster=" + c.Name, "-cluster-uid=" + string(c.UID),
		"-job=" + name, "-bundle=" + bundleDir(c), "-confine-files",
	}
	if r.phase == v1alpha1.PhaseRelease {
		return args // it runs no eggo: it deletes objects of the state namespace
	}
	if c.Spec.IdentitySecretRef != nil {
		args = append(args, "-identity="+v1alpha1.MountIdentity+"/"+v1alpha1.IdentityKey)
	}
	if r.phase == v1alpha1.PhaseApply {
		return append(args, "-plan-hash="+r.planHash)
	}
	names := make([]string, 0, len(c.Spec.Variables))
	for k := range c.Spec.Variables {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "-var="+k+"="+c.Spec.Variables[k])
	}
	return args
}

func bundleDir(c *v1alpha1.EggoCluster) string {
	if c.Spec.Bundle.Path == "" {
		return v1alpha1.MountBundle
	}
	return v1alpha1.MountBundle + "/" + c.Spec.Bundle.Path
}

func ptrOr[T any](p *T, def T) *T {
	if p != nil {
		v := *p
		return &v
	}
	return &def
}
