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

// LoadBalancerNodeName is the eggo node (role loadbalance) the control
// plane renders on the host an SSHCluster's loadBalancer claimed:
// "<cluster>-lb". The SSHCluster waits for it to leave eggo's state
// before it releases the host.
func LoadBalancerNodeName(cluster string) string { return cluster + "-lb" }

// LoadBalancerPort is where eggo's load balancer serves the API.
const LoadBalancerPort = 6443
