package controller

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"

	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// finalize handles a deleted EggoCluster. Orphan: the hosts stay as they
// are; so do they for a cluster that never applied. Either way, once no
// other Job of the cluster runs, what its Jobs left in a state namespace
// of its own is released (releaseStep) and the finalizer goes. Destroy:
// once no other Job of the cluster runs, a destroy Job; when it succeeds
// the finalizer goes; when it fails the EggoCluster stays, Failed, until
// someone fixes the cause and asks again (a new eggo.io/plan-requested
// value starts a new destroy Job; so does removing the failed one) or
// sets deletionPolicy Orphan.
func (r *Reconciler) finalize(ctx context.Context, c *v1alpha1.EggoCluster) error {
	if !controllerutil.ContainsFinalizer(c, v1alpha1.Finalizer) {
		return nil
	}
	jobs, err := r.clusterJobs(ctx, c)
	if err != nil {
		return err
	}
	step := r.destroyStep
	// A cluster that never applied changed no host: there is nothing of
	// its own to destroy.
	if c.Spec.DeletionPolicy == v1alpha1.DeletionOrphan || neverApplied(c, jobs) {
		step = r.releaseStep
	}
	before := c.Status.DeepCopy()
	done, err := step(ctx, c, jobs)
	if err != nil {
		return err
	}
	if done {
		return r.dropFinalizer(ctx, c)
	}
	return r.saveStatus(ctx, c, before)
}

// releaseStep lets an EggoCluster go without a destroy. Its Jobs' saved
// plans and access Secrets in a state namespace of its own outlive it (no
// ownerReference reaches there), and the next EggoCluster of its name
// would find them foreign: a release Job deletes them, once no other Job
// runs. In its own namespace they go with it. The release Job's failure
// does not hold the deletion: a Warning event says what is left.
func (r *Reconciler) releaseStep(ctx context.Context, c *v1alpha1.EggoCluster, jobs []batchv1.Job) (bool, error) {
	ns := c.Status.StateNamespace
	if ns == "" || ns == c.Namespace {
		return true, nil
	}
	if j := activeJob(jobs); j != nil {
		markRunning(c, j.Labels[v1alpha1.LabelPhase], j.Name)
		return false, nil
	}
	req := jobRequest{phase: v1alpha1.PhaseRelease, stateNamespace: ns}
	name := jobName(c, req)
	if j := findJob(jobs, name); j != nil {
		if jobOutcome(j) == failed {
			r.event(c, true, "ReleaseFailed", fmt.Sprintf("job %s failed: the saved plans and the %s and %s Secrets may be left in namespace %s (%s)",
				name, v1alpha1.KubeconfigSecretName(c.Name), v1alpha1.CASecretName(c.Name), ns, r.failureMessage(ctx, j)))
		}
		markEnded(c)
		return true, nil
	}
	p, err := r.readPolicy(ctx)
	if err != nil {
		r.event(c, true, "ReleaseFailed", fmt.Sprintf("no release Job: %v: the saved plans and access Secrets are left in namespace %s", err, ns))
		return true, nil
	}
	req.image = p.JobImage // the admin's: it runs no configuration of the spec's
	if err := r.createJob(ctx, c, req); err != nil {
		return false, err
	}
	return false, nil
}

// destroyStep waits for a running Job, records the destroy Job's end, or
// starts it; done when it has succeeded.
func (r *Reconciler) destroyStep(ctx context.Context, c *v1alpha1.EggoCluster, jobs []batchv1.Job) (bool, error) {
	if j := activeJob(jobs); j != nil {
		markRunning(c, j.Labels[v1alpha1.LabelPhase], j.Name)
		return false, nil
	}
	req := jobRequest{phase: v1alpha1.PhaseDestroy, inputs: planInputs{request: c.Annotations[v1alpha1.PlanRequestAnnotation]}}
	name := jobName(c, req)
	if j := findJob(jobs, name); j != nil {
		if jobOutcome(j) == succeeded {
			return true, nil
		}
		if c.Status.ActiveJob == name {
			r.recordFailure(ctx, c, j, v1alpha1.PhaseDestroy)
			markEnded(c)
		}
		return false, nil
	}
	if prev := c.Status.ActiveJob; prev != "" {
		if err := r.record(ctx, c, prev, findJob(jobs, prev)); err != nil {
			return false, err
		}
	}
	_, err := r.startJob(ctx, c, req)
	return false, err
}

// neverApplied: no apply Job of the cluster ever started (none recorded,
// none there). Destroying then would take down whatever the state holds
// from elsewhere (a cluster migrated in from the CLI) although this
// EggoCluster never touched a host.
func neverApplied(c *v1alpha1.EggoCluster, jobs []batchv1.Job) bool {
	if c.Status.LastAppliedPlanHash != "" || c.Status.LastFailedPlanHash != "" {
		return false
	}
	for _, j := range jobs {
		if p := j.Labels[v1alpha1.LabelPhase]; p == v1alpha1.PhaseApply || p == v1alpha1.PhaseDestroy {
			return false
		}
	}
	return true
}

func (r *Reconciler) dropFinalizer(ctx context.Context, c *v1alpha1.EggoCluster) error {
	controllerutil.RemoveFinalizer(c, v1alpha1.Finalizer)
	return r.Update(ctx, c)
}
