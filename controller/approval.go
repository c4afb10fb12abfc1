package controller

import "github.com/eggo-project/eggo/controller/api/v1alpha1"

// approved says whether the cluster's current plan may be applied: always
// under Automatic approval; under Manual only when the annotation
// eggo.io/approve-plan names exactly this plan's hash. A hash of an older
// plan never approves a newer one, and a prefix approves nothing.
func approved(c *v1alpha1.EggoCluster) bool {
	hash := c.Status.LastPlanHash
	if hash == "" {
		return false
	}
	if c.Spec.Approval == v1alpha1.ApprovalAutomatic {
		return true
	}
	return c.Annotations[v1alpha1.ApproveAnnotation] == hash
}

// hasChanges: the plan adds, changes or destroys something.
func hasChanges(s *v1alpha1.PlanSummary) bool {
	return s != nil && s.Add+s.Change+s.Destroy > 0
}
