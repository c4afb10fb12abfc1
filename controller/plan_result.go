package controller

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// planResult is a plan Job's published result.
type planResult struct {
	hash    string
	summary v1alpha1.PlanSummary
	ref     string // the ConfigMap's name
}

var planHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// readPlan finds the ConfigMap the plan Job published (labelled with the
// Job's name, owned by the cluster) and checks that the saved plan's
// Secret of the same name is in the Job's state namespace, published by
// the same Job for this EggoCluster (naming its namespace and UID, which
// an ownerReference cannot across namespaces). The Secret is read as
// metadata: the saved plan may hold the cluster's keys (sealed, when the
// state is), and the apply Job, which has the identity, checks that it is
// the plan of this hash before applying it.
func (r *Reconciler) readPlan(ctx context.Context, c *v1alpha1.EggoCluster, j *batchv1.Job) (planResult, error) {
	job := j.Name
	var list corev1.ConfigMapList
	err := r.APIReader.List(ctx, &list, client.InNamespace(c.Namespace),
		client.MatchingLabels{v1alpha1.LabelCluster: c.Name, v1alpha1.LabelJob: job, v1alpha1.LabelContent: "plan"})
	if err != nil {
		return planResult{}, err
	}
	if len(list.Items) != 1 {
		return planResult{}, fmt.Errorf("%d ConfigMaps labelled %s=%s, want 1", len(list.Items), v1alpha1.LabelJob, job)
	}
	cm := list.Items[0]
	if !ownedBy(&cm, c) {
		return planResult{}, fmt.Errorf("ConfigMap %s is not owned by this EggoCluster", cm.Name)
	}
	res := planResult{hash: cm.Data[v1alpha1.PlanKeyHash], ref: cm.Name}
	if !planHash.MatchString(res.hash) || cm.Name != v1alpha1.PlanObjectName(c.Name, res.hash) {
		return planResult{}, fmt.Errorf("ConfigMap %s holds no valid plan hash", cm.Name)
	}
	if err := json.Unmarshal([]byte(cm.Data[v1alpha1.PlanKeySummary]), &res.summary); err != nil {
		return planResult{}, fmt.Errorf("ConfigMap %s: summary: %v", cm.Name, err)
	}
	ns := cmp.Or(j.Annotations[v1alpha1.AnnotationStateNamespace], c.Namespace)
	s := metadataOf(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: cm.Name}, s); err != nil {
		return planResult{}, fmt.Errorf("the saved plan's Secret %s/%s: %w", ns, cm.Name, err)
	}
	if s.Labels[v1alpha1.LabelJob] != job || s.Labels[v1alpha1.LabelCluster] != c.Name || !publishedFor(s, c) {
		return planResult{}, fmt.Errorf("the Secret %s/%s was not published by job %s for this EggoCluster", ns, s.Name, job)
	}
	return res, nil
}

// publishedFor: o, published by a Job, is the EggoCluster's — owned by it
// in its namespace, naming its namespace and UID in a state namespace.
func publishedFor(o metav1.Object, c *v1alpha1.EggoCluster) bool {
	if o.GetNamespace() == c.Namespace {
		return ownedBy(o, c)
	}
	return o.GetLabels()[v1alpha1.LabelClusterNamespace] == c.Namespace &&
		o.GetAnnotations()[v1alpha1.AnnotationClusterUID] == string(c.UID)
}

// ownedBy: o has an owner reference to the EggoCluster (its UID).
func ownedBy(o metav1.Object, c *v1alpha1.EggoCluster) bool {
	for _, ref := range o.GetOwnerReferences() {
		if ref.UID == c.UID {
			return true
		}
	}
	return false
}
