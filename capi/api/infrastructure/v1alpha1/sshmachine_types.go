package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// HostAnnotation on an SSHMachine names the SSHHost it chose, written
// before it claims the host.
const HostAnnotation = "infrastructure.eggo.io/host"

// Condition types of an SSHMachine (besides Ready and Paused).
const (
	// SSHMachineHostClaimedCondition is true once the machine holds a host.
	SSHMachineHostClaimedCondition = "HostClaimed"
	// SSHMachineNodeJoinedCondition is true once the host's Node joined.
	SSHMachineNodeJoinedCondition = "NodeJoined"
)

// SSHMachineSpec is the contract's InfraMachine spec.
//
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.providerID) || (has(self.providerID) && self.providerID == oldSelf.providerID)",message="providerID is immutable once set"
type SSHMachineSpec struct {
	// ProviderID is eggo://<namespace>/<host>/<sshmachine-uid>, set by
	// eggo-capi once the host is claimed; the kubelet registers the Node
	// with it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// HostSelector chooses the host the machine claims.
	// +required
	HostSelector HostSelector `json:"hostSelector"`
}

// SSHMachineStatus is the contract's InfraMachine status.
type SSHMachineStatus struct {
	// Initialization is the contract's: provisioned once the host runs
	// the Node.
	// +optional
	Initialization SSHMachineInitializationStatus `json:"initialization,omitempty,omitzero"`

	// Addresses are the host's (InternalIP, Hostname).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Addresses []clusterv1.MachineAddress `json:"addresses,omitempty"`

	// Conditions are Ready, HostClaimed, NodeJoined and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SSHMachineInitializationStatus is the contract's initialization.
type SSHMachineInitializationStatus struct {
	// Provisioned is true once the machine's infrastructure is ready
	// (core mirrors it to the Machine's infrastructureProvisioned).
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// SSHMachine is the InfraMachine of a Machine on a claimed SSHHost.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=sshmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']"
// +kubebuilder:printcolumn:name="Host",type=string,JSONPath=".metadata.annotations['infrastructure\\.eggo\\.io/host']"
// +kubebuilder:printcolumn:name="ProviderID",type=string,JSONPath=".spec.providerID"
// +kubebuilder:printcolumn:name="Provisioned",type=boolean,JSONPath=".status.initialization.provisioned"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type SSHMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SSHMachineSpec `json:"spec"`
	// +optional
	Status SSHMachineStatus `json:"status,omitempty,omitzero"`
}

// SSHMachineList is a list of SSHMachines.
//
// +kubebuilder:object:root=true
type SSHMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SSHMachine `json:"items"`
}

// SSHMachineTemplateSpec holds the template.
type SSHMachineTemplateSpec struct {
	// +required
	Template SSHMachineTemplateResource `json:"template"`
}

// SSHMachineTemplateResource is the SSHMachine a MachineDeployment or
// the control plane stamps.
type SSHMachineTemplateResource struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +required
	Spec SSHMachineSpec `json:"spec"`
}

// SSHMachineTemplate is a template of SSHMachines.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=sshmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Pool",type=string,JSONPath=".spec.template.spec.hostSelector.pool"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type SSHMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SSHMachineTemplateSpec `json:"spec"`
}

// SSHMachineTemplateList is a list of SSHMachineTemplates.
//
// +kubebuilder:object:root=true
type SSHMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SSHMachineTemplate `json:"items"`
}
