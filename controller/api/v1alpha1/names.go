package v1alpha1

import "fmt"

// Labels and annotations the controller puts on what it makes, and the
// contract between the controller and its Jobs' command (where the Job
// mounts what, and where it publishes a plan).
const (
	LabelCluster    = "eggo.io/cluster"    // the EggoCluster's name
	LabelPhase      = "eggo.io/phase"      // plan, apply or destroy
	LabelGeneration = "eggo.io/generation" // the spec generation a plan Job plans
	LabelJob        = "eggo.io/job"        // on what a Job published: the Job
	LabelContent    = "eggo.io/content"    // what a Job published: plan or nodes
	// AnnotationPlanHash is the full hash an apply Job applies (a label
	// value cannot hold 64 characters).
	AnnotationPlanHash = "eggo.io/plan-hash"
	// AnnotationConfigHash and AnnotationPlanRequest are, on a plan Job,
	// the referenced configuration's hash and the plan request it plans
	// (the status observes them once the Job ends).
	AnnotationConfigHash  = "eggo.io/config-hash"
	AnnotationPlanRequest = "eggo.io/plan-request"
	// AnnotationStateNamespace is, on a Job, the namespace of its state,
	// saved plans and access Secrets (the policy's stateNamespace.<ns>),
	// where the controller looks for the saved plan it published.
	AnnotationStateNamespace = "eggo.io/state-namespace"
	// On what a Job publishes in the state namespace (the saved plans,
	// <cluster>-kubeconfig, <cluster>-ca), which an ownerReference cannot
	// tie to an EggoCluster of another namespace: the EggoCluster's
	// namespace and UID.
	LabelClusterNamespace = "eggo.io/cluster-namespace"
	AnnotationClusterUID  = "eggo.io/cluster-uid"
)

// Marks that let an EggoCluster use what its writer could not use on
// their own: each set by whoever controls the object marked.
const (
	// LabelJobServiceAccount ("true") on a ServiceAccount: the
	// namespace's admin lets EggoClusters run their Jobs as it
	// (spec.serviceAccountName). eggo-job, the default, needs no mark.
	LabelJobServiceAccount = "eggo.io/job-service-account"
	// AnnotationSecretClusters on a Secret or on a ConfigMap named by
	// config.configMapRef: the EggoClusters that may mount it (names
	// separated by commas, or "*" for every EggoCluster of the
	// namespace). One without it is mounted by none.
	AnnotationSecretClusters = "eggo.io/eggoclusters"
)

// Phases of a Job.
const (
	PhasePlan    = "plan"
	PhaseApply   = "apply"
	PhaseDestroy = "destroy"
	// PhaseRelease deletes what the cluster's Jobs left in its state
	// namespace (saved plans, access Secrets) when the EggoCluster goes
	// without a destroy: no ownerReference takes them away.
	PhaseRelease = "release"
)

// Where a Job finds its inputs.
const (
	MountConfig   = "/etc/eggo/config"       // cluster.hcl
	MountSSH      = "/var/run/eggo/ssh"      // ssh-privatekey (read-only)
	MountIdentity = "/var/run/eggo/identity" // identity (read-only)
	MountBundle   = "/var/lib/eggo/bundle"   // the bundle volume (read-only)
	MountWork     = "/var/lib/eggo/run"      // an emptyDir: the run's directory
	ConfigFile    = "cluster.hcl"
	IdentityKey   = "identity"
)

// MountSSHKeys holds every SSH key Secret a Job mounts, sshKeySecretRef's
// and each of spec.additionalSSHKeySecretRefs, each Secret's key at
// <secret name>/ssh-privatekey (SSHKeyPath): a node's private_key_file
// names its Secret, not whether that Secret is the first, so the path
// eggo's state records for a node stays right whichever Secret is first
// later. Beside MountSSH, not in it: a Secret volume is a read-only
// tmpfs, in which the kubelet could make no mount point.
const MountSSHKeys = "/var/run/eggo/ssh-keys"

// SSHPrivateKey is the one key of an SSH key Secret a Job mounts
// (corev1.SSHAuthPrivateKey, the key of a kubernetes.io/ssh-auth Secret).
const SSHPrivateKey = "ssh-privatekey"

// SSHKeyFile is the path of spec.sshKeySecretRef's key in a Job:
// /var/run/eggo/ssh/ssh-privatekey (it is also at SSHKeyPath of its name).
const SSHKeyFile = MountSSH + "/" + SSHPrivateKey

// SSHKeyDir is where a Job mounts the SSH key Secret secret (the first or
// an additional one).
func SSHKeyDir(secret string) string { return MountSSHKeys + "/" + secret }

// SSHKeyPath is the path of the SSH key Secret secret's key in a Job,
// /var/run/eggo/ssh-keys/<secret>/ssh-privatekey: what a node's
// private_key_file names to connect with that key.
func SSHKeyPath(secret string) string {
	return SSHKeyDir(secret) + "/" + SSHPrivateKey
}

// Keys of a published plan: the ConfigMap holds what may be shown, the
// Secret of the same name the saved plan (it may hold sealed values) and
// the configuration it was made from.
const (
	PlanKeyHash    = "hash"
	PlanKeySummary = "summary.json"
	PlanKeyText    = "plan.txt"
	PlanKeyFile    = "plan"
	PlanKeyConfig  = ConfigFile
	PlanKeyVars    = "vars" // the -var values the plan was made with, one a line
	// NodesKey holds the nodes' state (JSON, []NodeStatus) in the
	// ConfigMap NodesConfigMapName a Job writes after its run.
	NodesKey = "nodes.json"
)

// NodesConfigMapName is where a Job publishes the nodes' state from
// eggo's state after its run (success or not).
func NodesConfigMapName(cluster string) string { return cluster + "-nodes" }

// PlanObjectName is the name of the ConfigMap and the Secret publishing a
// cluster's plan: <cluster>-plan-<first 12 of the hash>.
func PlanObjectName(cluster, hash string) string {
	if len(hash) > 12 {
		hash = hash[:12]
	}
	return fmt.Sprintf("%s-plan-%s", cluster, hash)
}

// ConfigMapName is the ConfigMap the controller writes an inline
// configuration into.
func ConfigMapName(cluster string) string { return cluster + "-config" }

// The workload cluster's access, published by an apply Job after a
// successful apply under the names and keys Cluster API uses: the admin
// kubeconfig (it holds the admin client key: a Secret, never a ConfigMap,
// status, event or log) and the cluster CA's certificate only (never its
// key).
const (
	KubeconfigKey = "value"   // <cluster>-kubeconfig: the admin kubeconfig
	CACertKey     = "tls.crt" // <cluster>-ca: the cluster CA's certificate (PEM)
)

// KubeconfigSecretName is the Secret holding the workload cluster's admin
// kubeconfig (Cluster API's <cluster>-kubeconfig).
func KubeconfigSecretName(cluster string) string { return cluster + "-kubeconfig" }

// ClientKubeconfigSecretName is the Secret holding the kubeconfig of the
// configuration's client certificate client (certificates { client
// "NAME" }), key value: Cluster API's control plane publishes its own as
// the Cluster's <cluster>-kubeconfig from it.
func ClientKubeconfigSecretName(cluster, client string) string {
	return cluster + "-kubeconfig-" + client
}

// CASecretName is the Secret holding the workload cluster's CA certificate
// (Cluster API's <cluster>-ca, without its tls.key).
func CASecretName(cluster string) string { return cluster + "-ca" }
