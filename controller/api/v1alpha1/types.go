package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ApproveAnnotation approves one plan: its value must be exactly the
// plan's hash (status.lastPlanHash). An annotation rather than a spec
// field, because approving is an act on one plan, not a desired state: a
// spec field would bump metadata.generation and so ask for a new plan,
// which the approval could then never name.
const ApproveAnnotation = "eggo.io/approve-plan"

// PlanRequestAnnotation asks for a new plan of an unchanged spec: any new
// value (a timestamp, say) starts one, as Flux's requestedAt does. After a
// failed apply, or when the hosts changed outside eggo, it plans again
// without editing the spec. While the EggoCluster is being deleted, a new
// value starts a new destroy Job after a failed one.
const PlanRequestAnnotation = "eggo.io/plan-requested"

// Finalizer holds an EggoCluster until its destroy Job has run (or, with
// deletionPolicy Orphan, until the controller has seen the deletion).
const Finalizer = "eggo.io/destroy"

// EggoCluster is a cluster eggo plans and applies from a management
// cluster, each run a Job.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=eggoc
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Plan",type=string,JSONPath=`.status.lastPlanHash`
// +kubebuilder:printcolumn:name="Applied",type=string,JSONPath=`.status.lastAppliedPlanHash`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type EggoCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EggoClusterSpec   `json:"spec"`
	Status EggoClusterStatus `json:"status,omitempty"`
}

// EggoClusterList is a list of EggoClusters.
//
// +kubebuilder:object:root=true
type EggoClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EggoCluster `json:"items"`
}

// EggoClusterSpec is what the cluster should be and how eggo's Jobs run.
// No field holds a credential: keys live in the Secrets it names.
//
// +kubebuilder:validation:XValidation:rule="!has(self.additionalSSHKeySecretRefs) || self.additionalSSHKeySecretRefs.all(r, r.name != self.sshKeySecretRef.name)",message="additionalSSHKeySecretRefs must not name sshKeySecretRef's Secret again"
type EggoClusterSpec struct {
	// Config is the cluster's HCL.
	Config ConfigSource `json:"config"`

	// Variables are passed to eggo plan as -var NAME=VALUE. They are not
	// secret: put no credential here.
	// +optional
	Variables map[string]string `json:"variables,omitempty"`

	// Bundle is where the Job finds the offline package bundle.
	Bundle BundleSource `json:"bundle"`

	// SSHKeySecretRef names a Secret of type kubernetes.io/ssh-auth whose
	// ssh-privatekey eggo connects to the hosts with. It is mounted
	// read-only at /var/run/eggo/ssh/ssh-privatekey (that key only). The
	// Secret must opt in: its annotation eggo.io/eggoclusters lists this
	// EggoCluster's name (or is "*").
	SSHKeySecretRef corev1.LocalObjectReference `json:"sshKeySecretRef"`

	// AdditionalSSHKeySecretRefs name more Secrets of type
	// kubernetes.io/ssh-auth, for hosts another key reaches (a node's
	// private_key_file names the one it connects with). Each is mounted
	// read-only, its ssh-privatekey only, at
	// /var/run/eggo/ssh-keys/<secret name>/ssh-privatekey. Each must opt
	// in as sshKeySecretRef's does; none may name sshKeySecretRef's
	// Secret or another's again; each name is a Secret's (a DNS
	// subdomain of at most 253 characters). At most 16.
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:XValidation:rule="size(self.name) > 0 && size(self.name) <= 253",message="each name must be a Secret's name: 1 to 253 characters"
	// +optional
	AdditionalSSHKeySecretRefs []corev1.LocalObjectReference `json:"additionalSSHKeySecretRefs,omitempty"`

	// IdentitySecretRef optionally names a Secret whose key "identity" is
	// the age or SSH identity that opens the state's sealed secrets
	// (passed as -identity). It must opt in as sshKeySecretRef's does.
	// +optional
	IdentitySecretRef *corev1.LocalObjectReference `json:"identitySecretRef,omitempty"`

	// Image is the Jobs' image (eggo and eggo-controller in its PATH).
	// Default: the controller's own (jobImage in the policy ConfigMap
	// eggo-system/eggo-policy); any other must be one the platform admin
	// allows there (allowedImages). The admission policy and the
	// controller both check it: the image is code that runs with the
	// Jobs' ServiceAccount and the cluster's keys.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Image string `json:"image,omitempty"`

	// ServiceAccountName is the Jobs' ServiceAccount: it needs the state
	// backend's Secrets and Lease, and to create the plan's ConfigMap and
	// Secret. Default: eggo-job. Any other must be marked by the
	// namespace's admin with the label eggo.io/job-service-account=true.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// Approval says whether a plan is applied as soon as it is made
	// (Automatic) or only once the annotation eggo.io/approve-plan names
	// its hash (Manual).
	// +kubebuilder:default=Manual
	// +optional
	Approval Approval `json:"approval,omitempty"`

	// DeletionPolicy: Destroy runs eggo destroy when the EggoCluster is
	// deleted; Orphan leaves the hosts as they are.
	// +kubebuilder:default=Destroy
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// JobDefaults bound every Job.
	// +optional
	JobDefaults JobDefaults `json:"jobDefaults,omitempty"`
}

// ConfigSource holds the HCL inline or names a ConfigMap key holding it:
// exactly one of the two.
//
// +kubebuilder:validation:XValidation:rule="has(self.inline) != has(self.configMapRef)",message="exactly one of inline and configMapRef"
type ConfigSource struct {
	// Inline is the cluster's HCL itself.
	// +optional
	Inline *string `json:"inline,omitempty"`
	// ConfigMapRef names a key of a ConfigMap in the same namespace. The
	// ConfigMap must opt in: its annotation eggo.io/eggoclusters lists
	// this EggoCluster's name (or is "*").
	// +optional
	ConfigMapRef *ConfigMapKeyRef `json:"configMapRef,omitempty"`
}

// ConfigMapKeyRef names one key of a ConfigMap.
type ConfigMapKeyRef struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
}

// BundleSource is a path in a volume mounted into every Job.
type BundleSource struct {
	// Path is the bundle's directory inside the volume: relative, with no
	// ".." (the Job's configuration may read the bundle, so the path may
	// not lead it to the Job's other mounts).
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.split('/').exists(s, s == '..')",message="bundle.path must be relative and hold no '..'"
	// +optional
	Path string `json:"path,omitempty"`
	// Volume is where the bundle is, mounted read-only at
	// /var/lib/eggo/bundle.
	Volume BundleVolume `json:"volume"`
}

// BundleVolume is the volume holding the bundle: exactly one of a
// PersistentVolumeClaim, a ConfigMap, an image volume, or — only where
// the platform admin allows it (allowHostPathBundle in the policy
// ConfigMap), since it reads the node's own files — a hostPath. No other
// volume type: a Job's volumes are the cluster's to choose, not the
// EggoCluster writer's.
//
// +kubebuilder:validation:XValidation:rule="[has(self.persistentVolumeClaim), has(self.configMap), has(self.image), has(self.hostPath)].filter(x, x).size() == 1",message="bundle.volume: give exactly one of persistentVolumeClaim, configMap, image and hostPath"
type BundleVolume struct {
	// +optional
	PersistentVolumeClaim *corev1.PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	// +optional
	ConfigMap *corev1.ConfigMapVolumeSource `json:"configMap,omitempty"`
	// +optional
	Image *corev1.ImageVolumeSource `json:"image,omitempty"`
	// +optional
	HostPath *corev1.HostPathVolumeSource `json:"hostPath,omitempty"`
}

// VolumeSource is the Job's volume of it, read-only where the type has
// the choice.
func (b BundleVolume) VolumeSource() corev1.VolumeSource {
	v := corev1.VolumeSource{ConfigMap: b.ConfigMap, Image: b.Image, HostPath: b.HostPath}
	if b.PersistentVolumeClaim != nil {
		pvc := *b.PersistentVolumeClaim
		pvc.ReadOnly = true
		v.PersistentVolumeClaim = &pvc
	}
	return v
}

// Approval is Automatic or Manual.
// +kubebuilder:validation:Enum=Automatic;Manual
type Approval string

const (
	ApprovalAutomatic Approval = "Automatic"
	ApprovalManual    Approval = "Manual"
)

// DeletionPolicy is Destroy or Orphan.
// +kubebuilder:validation:Enum=Destroy;Orphan
type DeletionPolicy string

const (
	DeletionDestroy DeletionPolicy = "Destroy"
	DeletionOrphan  DeletionPolicy = "Orphan"
)

// JobDefaults bound every Job the controller starts.
type JobDefaults struct {
	// ActiveDeadlineSeconds: a Job running longer is stopped (default 3600).
	// +kubebuilder:validation:Minimum=1
	// +optional
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// BackoffLimit: retries of a failed pod (default 0: a failed run is
	// reported, not repeated behind the user's back).
	// +kubebuilder:validation:Minimum=0
	// +optional
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	// TTLSecondsAfterFinished: a finished Job is removed after it
	// (default 86400).
	// +kubebuilder:validation:Minimum=0
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}
