package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of an SSHHost.
const (
	// SSHHostClaimedCondition is true while a cluster holds the host.
	SSHHostClaimedCondition = "Claimed"
	// SSHHostCleanCondition is true when nothing eggo installed is left.
	SSHHostCleanCondition = "Clean"
)

// SSHHostPhase is where a host is in its life in the pool.
// +kubebuilder:validation:Enum=Available;Claimed;Cleaning;NeedsCleanup
type SSHHostPhase string

// The phases of an SSHHost.
const (
	SSHHostAvailable    SSHHostPhase = "Available"
	SSHHostClaimed      SSHHostPhase = "Claimed"
	SSHHostCleaning     SSHHostPhase = "Cleaning"
	SSHHostNeedsCleanup SSHHostPhase = "NeedsCleanup"
)

// ClaimPurpose says what a cluster uses a claimed host for.
// +kubebuilder:validation:Enum=Machine;LoadBalancer;ControlPlaneEndpoint
type ClaimPurpose string

// The purposes of a claim.
const (
	ClaimMachine              ClaimPurpose = "Machine"
	ClaimLoadBalancer         ClaimPurpose = "LoadBalancer"
	ClaimControlPlaneEndpoint ClaimPurpose = "ControlPlaneEndpoint"
)

// SSHHostSpec is one host eggo reaches over SSH, and who holds it.
//
// A claim cannot be stolen: while claimRef is set its clusterUID cannot
// change (release it first, by removing claimRef), and its machineUID
// may be set or unset but not replaced by another.
//
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.claimRef) || !has(self.claimRef) || self.claimRef.clusterUID == oldSelf.claimRef.clusterUID",message="claimRef.clusterUID cannot change while the host is claimed: release the claim (remove claimRef) first"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.claimRef) || !has(self.claimRef) || !has(oldSelf.claimRef.machineUID) || !has(self.claimRef.machineUID) || self.claimRef.machineUID == oldSelf.claimRef.machineUID",message="claimRef.machineUID cannot change from one machine to another: unset it first"
type SSHHostSpec struct {
	// Pool is the pool the host belongs to; selectors name it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Pool string `json:"pool"`

	// Address is the host's IP address or DNS name, as eggo dials it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Address string `json:"address"`

	// Port is the SSH port.
	// +optional
	// +kubebuilder:default=22
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// User is the SSH user.
	// +optional
	// +kubebuilder:default=root
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	User string `json:"user,omitempty"`

	// Sudo runs eggo's commands through sudo (for a user other than root).
	// +optional
	Sudo bool `json:"sudo,omitempty"`

	// Arch is the host's architecture, as the bundle names it.
	// +optional
	// +kubebuilder:default=amd64
	// +kubebuilder:validation:Enum=amd64;arm64
	Arch string `json:"arch,omitempty"`

	// SSHKeySecretRef names a Secret of type kubernetes.io/ssh-auth in
	// the host's namespace whose key ssh-privatekey reaches the host. It
	// must opt in with the annotation eggo.io/eggoclusters.
	// +required
	SSHKeySecretRef SecretReference `json:"sshKeySecretRef"`

	// HostKey is the host's SSH public host key, as in
	// /etc/ssh/ssh_host_ed25519_key.pub ("ssh-ed25519 AAAA…"): eggo
	// connects only to a host that proves it holds it (no trust on first
	// use).
	// +required
	// +kubebuilder:validation:MaxLength=16384
	// +kubebuilder:validation:Pattern=`^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) AAAA[0-9A-Za-z+/]+={0,3}( [^\r\n]*)?$`
	HostKey string `json:"hostKey"`

	// NodeLabels are put on the Node the host becomes.
	// +optional
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`

	// ClaimRef is the cluster (and machine) holding the host. Only
	// eggo-capi writes it, by a compare-and-swap update.
	// +optional
	ClaimRef *SSHHostClaim `json:"claimRef,omitempty"`
}

// SecretReference names a Secret in the referrer's namespace.
type SecretReference struct {
	// Name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// SSHHostClaim is a cluster's hold on a host.
type SSHHostClaim struct {
	// ClusterName is the claiming Cluster's name (same namespace).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	ClusterName string `json:"clusterName"`

	// ClusterUID is the claiming Cluster's UID: it cannot change while
	// the claim stands.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	ClusterUID string `json:"clusterUID"`

	// Purpose is what the cluster uses the host for.
	// +required
	Purpose ClaimPurpose `json:"purpose"`

	// MachineName is the SSHMachine on the host, if any.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	MachineName string `json:"machineName,omitempty"`

	// MachineUID is that SSHMachine's UID: it may be set or unset, never
	// replaced by another machine's.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	MachineUID string `json:"machineUID,omitempty"`
}

// SSHHostStatus is what eggo-capi observed of the host.
type SSHHostStatus struct {
	// Phase is Available (claimable), Claimed, Cleaning (eggo removes
	// what it installed) or NeedsCleanup (an admin must clean it and
	// clear the phase: never claimable until then).
	// +optional
	Phase SSHHostPhase `json:"phase,omitempty"`

	// Conditions are Ready, Claimed and Clean.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SSHHost is one host of a pool that eggo's machines claim.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=sshhosts,scope=Namespaced,categories=cluster-api
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Pool",type=string,JSONPath=".spec.pool"
// +kubebuilder:printcolumn:name="Address",type=string,JSONPath=".spec.address"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase"
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=".spec.claimRef.clusterName"
// +kubebuilder:printcolumn:name="Machine",type=string,JSONPath=".spec.claimRef.machineName"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type SSHHost struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SSHHostSpec `json:"spec"`
	// +optional
	Status SSHHostStatus `json:"status,omitempty,omitzero"`
}

// SSHHostList is a list of SSHHosts.
//
// +kubebuilder:object:root=true
type SSHHostList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SSHHost `json:"items"`
}
