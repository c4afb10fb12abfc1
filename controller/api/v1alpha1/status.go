package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Condition types of an EggoCluster. The first four are derived from the
// status's facts on every reconcile; Failed records an event (see the
// reasons, reasons.go).
const (
	// ConditionPlanned: the current generation has a plan.
	ConditionPlanned = "Planned"
	// ConditionApprovalPending: the plan waits for eggo.io/approve-plan.
	ConditionApprovalPending = "ApprovalPending"
	// ConditionApplying: an apply or destroy Job runs.
	ConditionApplying = "Applying"
	// ConditionReady: the current plan is applied (or changes nothing),
	// no Job runs and no failure stands.
	ConditionReady = "Ready"
	// ConditionFailed: the last run failed (status.lastFailure), until a
	// later one succeeds.
	ConditionFailed = "Failed"
)

// EggoClusterStatus is what the controller last saw. It never holds a
// credential.
type EggoClusterStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the spec generation the last finished plan
	// was made for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ObservedConfigHash is the sha256 (first 16 hex) of the referenced
	// ConfigMap's configuration the last finished plan was made from: an
	// edit of that ConfigMap makes a new plan, as a spec change does.
	// +optional
	ObservedConfigHash string `json:"observedConfigHash,omitempty"`
	// ObservedPlanRequest is the eggo.io/plan-requested value the last
	// finished plan answered.
	// +optional
	ObservedPlanRequest string `json:"observedPlanRequest,omitempty"`

	// LastPlanHash is the sha256 of the last saved plan.
	// +optional
	LastPlanHash string `json:"lastPlanHash,omitempty"`
	// LastAppliedPlanHash is the hash of the last plan applied in full.
	// +optional
	LastAppliedPlanHash string `json:"lastAppliedPlanHash,omitempty"`
	// LastFailedPlanHash is the hash of a plan whose apply failed: it is
	// not applied again; a new plan (a spec change) is needed.
	// +optional
	LastFailedPlanHash string `json:"lastFailedPlanHash,omitempty"`

	// PlanSummary is what the last plan does.
	// +optional
	PlanSummary *PlanSummary `json:"planSummary,omitempty"`
	// PlanRef names the ConfigMap holding the last plan's full text.
	// +optional
	PlanRef string `json:"planRef,omitempty"`
	// StateNamespace is where the last Job kept the state, the saved plan
	// (the Secret named as PlanRef) and, once applied, the Secrets
	// <name>-kubeconfig and <name>-ca: the namespace the platform admin
	// gave this namespace's state (the policy's stateNamespace.<ns>), or
	// this namespace.
	// +optional
	StateNamespace string `json:"stateNamespace,omitempty"`

	// Nodes is the state of each node as the last run's result names it.
	// +optional
	Nodes []NodeStatus `json:"nodes,omitempty"`

	// LastFailure is the message of the last failed Job (its termination
	// message, or the end of its log).
	// +optional
	LastFailure string `json:"lastFailure,omitempty"`
	// LastFailureReason says what failed (PlanFailed, ApplyFailed,
	// DestroyFailed, InvalidSpec or JobLost): the reason of the Failed
	// condition, and of Ready while the failure stands.
	// +optional
	LastFailureReason string `json:"lastFailureReason,omitempty"`

	// ActiveJob is the Job running for this cluster, if any.
	// +optional
	ActiveJob string `json:"activeJob,omitempty"`
	// ActiveJobPhase is ActiveJob's phase: plan, apply or destroy.
	// +optional
	ActiveJobPhase string `json:"activeJobPhase,omitempty"`
}

// PlanSummary counts a plan's changes and names what runs where.
type PlanSummary struct {
	Add     int `json:"add"`
	Change  int `json:"change"`
	Destroy int `json:"destroy"`
	// +optional
	Nodes []NodePlan `json:"nodes,omitempty"`
	// Hooks are the addresses of the hooks the plan runs.
	// +optional
	Hooks []string `json:"hooks,omitempty"`
}

// NodePlan is one node's planned operations ("create host.w0", …).
type NodePlan struct {
	Name       string   `json:"name"`
	Operations []string `json:"operations"`
}

// NodeStatus is one node's state.
type NodeStatus struct {
	Name  string `json:"name"`
	State string `json:"state"`
}
