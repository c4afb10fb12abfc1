package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Condition types of an EggoControlPlane: the contract's and
// KubeadmControlPlane's, and eggo's own mirrored from the EggoCluster.
const (
	AvailableCondition        = "Available"
	MachinesReadyCondition    = "MachinesReady"
	MachinesUpToDateCondition = "MachinesUpToDate"
	RollingOutCondition       = "RollingOut"
	ScalingUpCondition        = "ScalingUp"
	ScalingDownCondition      = "ScalingDown"
	DeletingCondition         = "Deleting"
	PausedCondition           = "Paused"
	PlannedCondition          = "Planned"
	ApplyingCondition         = "Applying"
)

// EggoControlPlaneSpec is the contract's control plane spec plus how
// eggo's Jobs deploy the cluster.
type EggoControlPlaneSpec struct {
	// Replicas is the number of control plane Machines (masters, each
	// with an etcd member).
	// +optional
	// +kubebuilder:validation:Minimum=1
	Replicas *int32 `json:"replicas,omitempty"`

	// Version is the Kubernetes version of the cluster, "v"-prefixed
	// semver (v1.36.5).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`
	Version string `json:"version,omitempty"`

	// MachineTemplate is the contract's: what the control plane Machines
	// are made of.
	// +required
	MachineTemplate EggoControlPlaneMachineTemplate `json:"machineTemplate"`

	// Eggo is how eggo's Jobs deploy the cluster.
	// +required
	Eggo EggoSpec `json:"eggo"`

	// Kubeconfig is the published <cluster>-kubeconfig's client
	// certificate.
	// +optional
	// +kubebuilder:default={}
	Kubeconfig KubeconfigSpec `json:"kubeconfig,omitempty,omitzero"`
}

// EggoControlPlaneMachineTemplate is the contract's machineTemplate.
type EggoControlPlaneMachineTemplate struct {
	// ObjectMeta is put on the Machines (and their infrastructure and
	// bootstrap objects) without a rollout.
	// +optional
	ObjectMeta clusterv1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// Spec is the Machines' spec.
	// +required
	Spec EggoControlPlaneMachineTemplateSpec `json:"spec"`
}

// EggoControlPlaneMachineTemplateSpec is the contract's
// machineTemplate.spec.
type EggoControlPlaneMachineTemplateSpec struct {
	// InfrastructureRef names the SSHMachineTemplate the Machines' SSHMachines
	// are made from.
	// +required
	InfrastructureRef clusterv1.ContractVersionedObjectReference `json:"infrastructureRef"`

	// Deletion bounds a Machine's deletion.
	// +optional
	Deletion MachineDeletionSpec `json:"deletion,omitempty,omitzero"`

	// ReadinessGates are added to the Machines'.
	// +optional
	// +listType=map
	// +listMapKey=conditionType
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	ReadinessGates []clusterv1.MachineReadinessGate `json:"readinessGates,omitempty"`

	// Taints are the Node taints core manages on the Machines' Nodes.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Taints []clusterv1.MachineTaint `json:"taints,omitempty"`
}

// MachineDeletionSpec is the contract's machineTemplate.spec.deletion.
// +kubebuilder:validation:MinProperties=1
type MachineDeletionSpec struct {
	// NodeDrainTimeoutSeconds bounds the drain (0: no bound).
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDrainTimeoutSeconds *int32 `json:"nodeDrainTimeoutSeconds,omitempty"`

	// NodeVolumeDetachTimeoutSeconds bounds the wait for volumes to detach
	// (0: no bound).
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeVolumeDetachTimeoutSeconds *int32 `json:"nodeVolumeDetachTimeoutSeconds,omitempty"`

	// NodeDeletionTimeoutSeconds bounds the Node's deletion (0: retry
	// forever).
	// +optional
	// +kubebuilder:validation:Minimum=0
	NodeDeletionTimeoutSeconds *int32 `json:"nodeDeletionTimeoutSeconds,omitempty"`
}

// EggoSpec is how the EggoCluster the control plane owns runs eggo.
type EggoSpec struct {
	// Bundle is where the Jobs find the offline package bundle.
	// +required
	Bundle eggov1.BundleSource `json:"bundle"`

	// Image is the Jobs' image (default: the eggo-controller's).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// ServiceAccountName is the Jobs' ServiceAccount (default: eggo-job).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// IdentitySecretRef names the Secret whose key "identity" opens the
	// state's sealed secrets.
	// +optional
	IdentitySecretRef *corev1.LocalObjectReference `json:"identitySecretRef,omitempty"`

	// Recipients are the age or SSH public keys the state's secrets are
	// sealed to (the HCL's secrets block).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=16384
	Recipients []string `json:"recipients,omitempty"`

	// Network is the cluster's Service and Pod ranges (default: the
	// Cluster's clusterNetwork, else eggo's).
	// +optional
	Network NetworkSpec `json:"network,omitempty,omitzero"`

	// Addons are eggo's built-in add-ons: CoreDNS (on unless
	// addons.coreDNS is false) and kube-proxy (eggo's default: on).
	// +optional
	Addons AddonsSpec `json:"addons,omitempty,omitzero"`

	// Runtime is containerd's and the kubelet's settings on every node
	// (default: eggo's).
	// +optional
	Runtime RuntimeSpec `json:"runtime,omitempty,omitzero"`
}

// NetworkSpec is the cluster's address ranges.
type NetworkSpec struct {
	// ServiceCIDR is the Services' range.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="serviceCIDR must be a CIDR"
	ServiceCIDR string `json:"serviceCIDR,omitempty"`

	// PodCIDR is the Pods' range.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="podCIDR must be a CIDR"
	PodCIDR string `json:"podCIDR,omitempty"`
}

// KubeconfigSpec says how long the <cluster>-kubeconfig's client
// certificate lives and when a plan renews it. Both are pointers so that
// a client that leaves one out gets the server's default, not zero.
// +kubebuilder:validation:XValidation:rule="!has(self.renewBefore) || !has(self.validity) || duration(self.renewBefore) < duration(self.validity)",message="kubeconfig.renewBefore must be shorter than kubeconfig.validity"
type KubeconfigSpec struct {
	// Validity is the client certificate's lifetime.
	// +optional
	// +kubebuilder:default="720h"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1h')",message="kubeconfig.validity must be at least 1h"
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('87600h')",message="kubeconfig.validity must not outlive the cluster CA (87600h, eggo's ca_validity)"
	Validity *metav1.Duration `json:"validity,omitempty"`

	// RenewBefore is how long before its end a plan renews it.
	// +optional
	// +kubebuilder:default="240h"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1m')",message="kubeconfig.renewBefore must be at least 1m: with less, the certificate expires before a plan can renew it"
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// EggoControlPlaneStatus is the contract's control plane status plus
// eggo's.
type EggoControlPlaneStatus struct {
	// Conditions are Available, MachinesReady, MachinesUpToDate,
	// RollingOut, ScalingUp, ScalingDown, Deleting, Paused, and eggo's
	// Planned and Applying.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Initialization is the contract's.
	// +optional
	Initialization EggoControlPlaneInitializationStatus `json:"initialization,omitempty,omitzero"`

	// Selector selects the control plane Machines, in the query-parameter
	// form (the scale subresource's labelSelectorPath).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Selector string `json:"selector,omitempty"`

	// Replicas is the number of control plane Machines.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// ReadyReplicas is the number of those whose Ready is true.
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// AvailableReplicas is the number of those whose Available is true.
	// +optional
	AvailableReplicas *int32 `json:"availableReplicas,omitempty"`

	// UpToDateReplicas is the number of those whose UpToDate is true.
	// +optional
	UpToDateReplicas *int32 `json:"upToDateReplicas,omitempty"`

	// Versions are the Kubernetes versions of the control plane Machines,
	// older to newer, each with its count.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	Versions []clusterv1.StatusVersion `json:"versions,omitempty"`

	// Version is the oldest of versions.
	//
	// Deprecated: the contract's fallback for versions.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Version string `json:"version,omitempty"`

	// ObservedGeneration is the generation the status is of.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// EggoClusterName is the EggoCluster the control plane owns.
	// +optional
	EggoClusterName string `json:"eggoClusterName,omitempty"`

	// LastAppliedPlanHash is the hash of the last plan applied.
	// +optional
	LastAppliedPlanHash string `json:"lastAppliedPlanHash,omitempty"`

	// KubeconfigNotAfter is when the published kubeconfig's client
	// certificate expires.
	// +optional
	KubeconfigNotAfter *metav1.Time `json:"kubeconfigNotAfter,omitempty"`
}

// EggoControlPlaneInitializationStatus is the contract's initialization.
type EggoControlPlaneInitializationStatus struct {
	// ControlPlaneInitialized is true once the first apply with a master
	// succeeded (the API server accepts requests).
	// +optional
	ControlPlaneInitialized *bool `json:"controlPlaneInitialized,omitempty"`
}

// EggoControlPlane is a Cluster's control plane, deployed (with its
// workers) by eggo through one EggoCluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=eggocontrolplanes,shortName=ecp,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=".spec.replicas"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=".status.replicas"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyReplicas"
// +kubebuilder:printcolumn:name="Up-to-date",type=integer,JSONPath=".status.upToDateReplicas"
// +kubebuilder:printcolumn:name="Initialized",type=boolean,JSONPath=".status.initialization.controlPlaneInitialized"
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=".spec.version"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type EggoControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec EggoControlPlaneSpec `json:"spec"`
	// +optional
	Status EggoControlPlaneStatus `json:"status,omitempty,omitzero"`
}

// EggoControlPlaneList is a list of EggoControlPlanes.
//
// +kubebuilder:object:root=true
type EggoControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EggoControlPlane `json:"items"`
}
