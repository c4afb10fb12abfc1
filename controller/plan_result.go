package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
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
// Job's name) and checks that the saved plan's Secret is beside it.
func (r *Reconciler) readPlan(ctx context.Context, c *v1alpha1.EggoCluster, job string) (planResult, error) {
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
	res := planResult{hash: cm.Data[v1alpha1.PlanKeyHash], ref: cm.Name}
	if !planHash.MatchString(res.hash) || cm.Name != v1alpha1.PlanObjectName(c.Name, res.hash) {
		return planResult{}, fmt.Errorf("ConfigMap %s holds no valid plan hash", cm.Name)
	}
	if err := json.Unmarshal([]byte(cm.Data[v1alpha1.PlanKeySummary]), &res.summary); err != nil {
		return planResult{}, fmt.Errorf("ConfigMap %s: summary: %v", cm.Name, err)
	}
	var s corev1.Secret
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: cm.Name}, &s); err != nil {
		return planResult{}, fmt.Errorf("the saved plan's Secret: %w", err)
	}
	if sum := sha256.Sum256(s.Data[v1alpha1.PlanKeyFile]); hex.EncodeToString(sum[:]) != res.hash {
		return planResult{}, fmt.Errorf("the saved plan in Secret %s is not the plan %s", s.Name, short(res.hash))
	}
	return res, nil
}
