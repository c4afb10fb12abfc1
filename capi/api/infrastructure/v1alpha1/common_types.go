package v1alpha1

// Condition types and reasons shared by the infrastructure kinds.
const (
	// ReadyCondition is the contract's Ready: core mirrors it to the
	// Cluster's and the Machine's InfrastructureReady.
	ReadyCondition = "Ready"
	// PausedCondition reports Cluster.spec.paused or the paused annotation.
	PausedCondition = "Paused"
)

// HostSelector chooses SSHHosts: those of one pool whose labels match.
type HostSelector struct {
	// Pool is the SSHHosts' spec.pool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Pool string `json:"pool"`

	// MatchLabels further restricts the hosts to those whose
	// metadata.labels hold all these.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}
