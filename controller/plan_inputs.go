package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// planInputs are what a plan is made from besides the spec's generation:
// a referenced ConfigMap's configuration (its hash; "" for an inline one,
// which is in the spec) and the eggo.io/plan-requested annotation. A
// change of either makes a new plan, as a new generation does.
type planInputs struct {
	config, request string
}

// unreadableConfig stands for a referenced ConfigMap (or key) that cannot
// be read: it differs from every hash, so the plan it starts reports why
// through checkSpec, and is observed so it is not started again.
const unreadableConfig = "unreadable"

// currentInputs reads the referenced ConfigMap (past the cache: the
// controller caches ConfigMaps' metadata only) and the annotation.
func (r *Reconciler) currentInputs(ctx context.Context, c *v1alpha1.EggoCluster) planInputs {
	in := planInputs{request: c.Annotations[v1alpha1.PlanRequestAnnotation]}
	ref := c.Spec.Config.ConfigMapRef
	if ref == nil {
		return in
	}
	var cm corev1.ConfigMap
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, &cm); err != nil {
		in.config = unreadableConfig
		return in
	}
	data, ok := cm.Data[ref.Key]
	if !ok {
		in.config = unreadableConfig
		return in
	}
	sum := sha256.Sum256([]byte(data))
	in.config = hex.EncodeToString(sum[:8])
	return in
}

// observedInputs are the inputs of the last finished plan.
func observedInputs(c *v1alpha1.EggoCluster) planInputs {
	return planInputs{config: c.Status.ObservedConfigHash, request: c.Status.ObservedPlanRequest}
}

// inputsOfJob are the inputs a plan Job planned (its annotations).
func inputsOfJob(j *batchv1.Job) planInputs {
	return planInputs{config: j.Annotations[v1alpha1.AnnotationConfigHash], request: j.Annotations[v1alpha1.AnnotationPlanRequest]}
}

// annotate puts the inputs on a plan Job.
func (in planInputs) annotate(annotations map[string]string) {
	if in.config != "" {
		annotations[v1alpha1.AnnotationConfigHash] = in.config
	}
	if in.request != "" {
		annotations[v1alpha1.AnnotationPlanRequest] = in.request
	}
}

// nameSuffix tells plan Jobs of one generation apart when their inputs
// differ ("" for the plain inputs, so the name stays <cluster>-plan-gN).
func (in planInputs) nameSuffix() string {
	if in == (planInputs{}) {
		return ""
	}
	sum := sha256.Sum256([]byte(in.config + "\x00" + in.request))
	return fmt.Sprintf("-%x", sum[:4])
}
