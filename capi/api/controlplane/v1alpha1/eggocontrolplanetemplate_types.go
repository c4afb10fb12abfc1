package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// EggoControlPlaneTemplateSpec holds the template.
type EggoControlPlaneTemplateSpec struct {
	// +required
	Template EggoControlPlaneTemplateResource `json:"template"`
}

// EggoControlPlaneTemplateResource is the EggoControlPlane a ClusterClass
// stamps, less what the Cluster's topology sets (replicas, version,
// machineTemplate.spec.infrastructureRef).
type EggoControlPlaneTemplateResource struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +required
	Spec EggoControlPlaneTemplateResourceSpec `json:"spec"`
}

// EggoControlPlaneTemplateResourceSpec is EggoControlPlaneSpec without
// the fields the topology sets.
type EggoControlPlaneTemplateResourceSpec struct {
	// MachineTemplate is the control plane Machines' metadata and spec.
	// +optional
	MachineTemplate *EggoControlPlaneTemplateMachineTemplate `json:"machineTemplate,omitempty"`

	// Eggo is how eggo's Jobs deploy the cluster.
	// +required
	Eggo EggoSpec `json:"eggo"`

	// Kubeconfig is the published kubeconfig's client certificate.
	// +optional
	// +kubebuilder:default={}
	Kubeconfig KubeconfigSpec `json:"kubeconfig,omitempty,omitzero"`
}

// EggoControlPlaneTemplateMachineTemplate is machineTemplate less the
// infrastructureRef.
type EggoControlPlaneTemplateMachineTemplate struct {
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`
	// +optional
	Spec EggoControlPlaneTemplateMachineTemplateSpec `json:"spec,omitempty,omitzero"`
}

// EggoControlPlaneTemplateMachineTemplateSpec is
// EggoControlPlaneMachineTemplateSpec less the infrastructureRef.
type EggoControlPlaneTemplateMachineTemplateSpec struct {
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`

	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`
}

// EggoControlPlaneTemplate is a template of EggoControlPlanes (for
// ClusterClasses).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=eggocontrolplanetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type EggoControlPlaneTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec EggoControlPlaneTemplateSpec `json:"spec"`
}

// EggoControlPlaneTemplateList is a list of EggoControlPlaneTemplates.
//
// +kubebuilder:object:root=true
type EggoControlPlaneTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EggoControlPlaneTemplate `json:"items"`
}
