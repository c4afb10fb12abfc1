package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Condition types of an SSHCluster (besides Ready and Paused).
const (
	// SSHClusterEndpointReadyCondition is true once the control plane
	// endpoint is known.
	SSHClusterEndpointReadyCondition = "EndpointReady"
)

// SSHClusterSpec says where the control plane's endpoint comes from: given
// (controlPlaneEndpoint: a VIP, a DNS name, an external load balancer), a
// claimed host running eggo's load balancer (loadBalancer), or the host
// of the first master (controlPlaneHostSelector).
//
// +kubebuilder:validation:XValidation:rule="!(has(self.loadBalancer) && has(self.controlPlaneHostSelector))",message="set at most one of loadBalancer and controlPlaneHostSelector"
type SSHClusterSpec struct {
	// ControlPlaneEndpoint is the workload cluster's API endpoint: set by
	// the user, or by eggo-capi once the host that serves it is claimed.
	// +optional
	ControlPlaneEndpoint clusterv1.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// LoadBalancer claims a host for eggo's load balancer (haproxy) in
	// front of the masters; the endpoint is its address.
	// +optional
	LoadBalancer *SSHLoadBalancer `json:"loadBalancer,omitempty"`

	// ControlPlaneHostSelector reserves the host of the first master; the
	// endpoint is its address, port 6443.
	// +optional
	ControlPlaneHostSelector *HostSelector `json:"controlPlaneHostSelector,omitempty"`
}

// SSHLoadBalancer is a load balancer host the cluster claims.
type SSHLoadBalancer struct {
	// HostSelector chooses the host.
	// +required
	HostSelector HostSelector `json:"hostSelector"`
}

// SSHClusterStatus is the contract's InfraCluster status.
type SSHClusterStatus struct {
	// Initialization is the contract's: provisioned once the endpoint is
	// known.
	// +optional
	Initialization SSHClusterInitializationStatus `json:"initialization,omitempty,omitzero"`

	// Conditions are Ready, EndpointReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SSHClusterInitializationStatus is the contract's initialization.
type SSHClusterInitializationStatus struct {
	// Provisioned is true once the infrastructure is ready (core mirrors
	// it to the Cluster's infrastructureProvisioned).
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// SSHCluster is the InfraCluster of a cluster on SSH hosts.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=sshclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']"
// +kubebuilder:printcolumn:name="Endpoint",type=string,JSONPath=".spec.controlPlaneEndpoint.host"
// +kubebuilder:printcolumn:name="Provisioned",type=boolean,JSONPath=".status.initialization.provisioned"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type SSHCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SSHClusterSpec `json:"spec,omitempty,omitzero"`
	// +optional
	Status SSHClusterStatus `json:"status,omitempty,omitzero"`
}

// SSHClusterList is a list of SSHClusters.
//
// +kubebuilder:object:root=true
type SSHClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SSHCluster `json:"items"`
}

// SSHClusterTemplateSpec holds the template.
type SSHClusterTemplateSpec struct {
	// +required
	Template SSHClusterTemplateResource `json:"template"`
}

// SSHClusterTemplateResource is the SSHCluster a ClusterClass stamps.
type SSHClusterTemplateResource struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +optional
	Spec SSHClusterSpec `json:"spec,omitempty,omitzero"`
}

// SSHClusterTemplate is a template of SSHClusters (for ClusterClasses).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=sshclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type SSHClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SSHClusterTemplateSpec `json:"spec"`
}

// SSHClusterTemplateList is a list of SSHClusterTemplates.
//
// +kubebuilder:object:root=true
type SSHClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SSHClusterTemplate `json:"items"`
}
