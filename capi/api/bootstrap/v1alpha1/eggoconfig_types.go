package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// ReadyCondition is the contract's Ready: core mirrors it to the
// Machine's BootstrapConfigReady.
const ReadyCondition = "Ready"

// EggoConfigSpec is what a Machine's node gets besides its role and
// version (which come from the Machine).
type EggoConfigSpec struct {
	// NodeLabels are put on the Node.
	// +optional
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`

	// Taints are registered with the Node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Taints []corev1.Taint `json:"taints,omitempty"`

	// UninitializedTaint registers the Node with
	// node.cluster.x-k8s.io/uninitialized:NoSchedule, which core removes
	// once it synced the Machine's labels.
	// +optional
	UninitializedTaint bool `json:"uninitializedTaint,omitempty"`
}

// EggoConfigStatus is the contract's BootstrapConfig status.
type EggoConfigStatus struct {
	// DataSecretName is the Secret holding the bootstrap data (key
	// "value"), named after the EggoConfig.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	DataSecretName *string `json:"dataSecretName,omitempty"`

	// Initialization is the contract's.
	// +optional
	Initialization EggoConfigInitializationStatus `json:"initialization,omitempty,omitzero"`

	// Conditions are Ready and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// EggoConfigInitializationStatus is the contract's initialization.
type EggoConfigInitializationStatus struct {
	// DataSecretCreated is true once the data Secret exists.
	// +optional
	DataSecretCreated *bool `json:"dataSecretCreated,omitempty"`
}

// EggoConfig is the BootstrapConfig of a Machine eggo deploys.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=eggoconfigs,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']"
// +kubebuilder:printcolumn:name="Data secret",type=string,JSONPath=".status.dataSecretName"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type EggoConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec EggoConfigSpec `json:"spec,omitempty,omitzero"`
	// +optional
	Status EggoConfigStatus `json:"status,omitempty,omitzero"`
}

// EggoConfigList is a list of EggoConfigs.
//
// +kubebuilder:object:root=true
type EggoConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EggoConfig `json:"items"`
}

// EggoConfigTemplateSpec holds the template.
type EggoConfigTemplateSpec struct {
	// +required
	Template EggoConfigTemplateResource `json:"template"`
}

// EggoConfigTemplateResource is the EggoConfig a MachineDeployment
// stamps.
type EggoConfigTemplateResource struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +optional
	Spec EggoConfigSpec `json:"spec,omitempty,omitzero"`
}

// EggoConfigTemplate is a template of EggoConfigs.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=eggoconfigtemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type EggoConfigTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec EggoConfigTemplateSpec `json:"spec"`
}

// EggoConfigTemplateList is a list of EggoConfigTemplates.
//
// +kubebuilder:object:root=true
type EggoConfigTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EggoConfigTemplate `json:"items"`
}
