package resources

import (
	"time"
)

// Cluster is the decoded cluster definition: the model every kind expands
// from. engine/config fills it from HCL; kinds only read it.
type Cluster struct {
	Name   string
	Source string // "file.hcl:1" of the cluster block
	// Ranges locate the cluster block and the attributes later checks
	// blame: kubernetes_version, packages, config_dir, api_endpoint,
	// extra_args, network.pod_cidr, network.service_cidr, addons.coredns,
	// addons.manifests.
	Ranges            SourceRanges
	KubernetesVersion string
	Packages          string // absolute path of the package bundle ("" for none)
	ConfigDir         string
	APIEndpoint       string
	Labels            map[string]string
	Annotations       map[string]string
	Network           Network
	Certificates      Certificates
	// MaxUnavailable is how many workers a rolling upgrade takes down at a
	// time (default 1).
	MaxUnavailable int
	// ScheduleOnMasters registers the masters without the control-plane
	// taint, so ordinary workloads run on them too (small clusters).
	ScheduleOnMasters bool
	// Implementation is how the control plane runs: ImplementationBinary
	// (systemd units) or ImplementationPod (static pods the masters'
	// kubelets run). Empty means binary.
	Implementation string
	// EtcdImplementation is how etcd runs: ImplementationBinary (a systemd
	// unit, also in the pod implementation, as kubespray and KubeKey do) or
	// ImplementationPod (a static pod; only with Implementation pod, and
	// only on masters). Empty means binary.
	EtcdImplementation string
	// ExtraArgs are per-component command-line flags ("kube-apiserver" →
	// "v" → "2"); they override eggo's own flags of the same name.
	ExtraArgs map[string]map[string]string
	Runtime   Runtime
	Nodes     []Node // in declaration order (for_each keys sorted, count in order)
	// Addons are the Kubernetes objects eggo applies once the cluster
	// runs: the built-in CoreDNS and the user's manifests.
	Addons Addons
	// RecordedPodSubnets are the pod subnets workers were given by earlier
	// applies (node name → CIDR), as the state records them; the engine
	// fills it with RecallPodSubnets before expanding. A worker keeps its
	// subnet while it stays valid, so removing another node never moves it.
	RecordedPodSubnets map[string]string
	// RecordedKubernetes is the oldest and the newest Kubernetes version
	// the cluster's components run, as the state records them (empty for a
	// new cluster); the engine fills it before expanding, and a plan moves
	// the cluster one minor version at a time from there.
	RecordedKubernetes VersionSpan

	// topo answers NodesWithRole and Endpoint while the engine expands
	// (see Index); nil otherwise.
	topo *topology
}

// The implementations of the control plane (the cluster's implementation).
const (
	ImplementationBinary = "binary"
	ImplementationPod    = "pod"
)

// StaticPods says whether the control plane runs as static pods.
func (c *Cluster) StaticPods() bool { return c.Implementation == ImplementationPod }

// EtcdStaticPods says whether etcd runs as static pods.
func (c *Cluster) EtcdStaticPods() bool {
	return c.StaticPods() && c.EtcdImplementation == ImplementationPod
}

// Runtime holds container runtime settings a cluster definition passes to
// containerd. They are off by default: a sandbox that needs one (the
// testbed's nspawn hosts need RestrictOOMScoreAdj) says so.
type Runtime struct {
	// RestrictOOMScoreAdj is containerd's CRI restrict_oom_score_adj: needed
	// where the runtime lacks CAP_SYS_RESOURCE.
	RestrictOOMScoreAdj bool
	// CgroupRootPerNode gives each Node's kubelet its own cgroup root
	// (/eggo-MACHINE_ID) instead of /: needed where nodes share one cgroup
	// hierarchy (containers such as the testbed's nspawn hosts), or each
	// kubelet removes the others' pod cgroups, and kills their processes,
	// as orphans.
	CgroupRootPerNode bool
	// EvictionHard is the kubelet's evictionHard (signal → threshold, a
	// quantity or a percentage), replacing its defaults when set: nodes
	// whose disk is shared with much else (the testbed's containers share
	// this machine's) are better judged by what is left than by a share
	// of a capacity that is not theirs.
	EvictionHard map[string]string
	// ImageGCHighPercent and ImageGCLowPercent are the kubelet's image
	// garbage collection thresholds (0: its defaults, 85 and 80): the disk
	// use at which it deletes unused images, and the use it deletes down
	// to. A node that shares its disk (the testbed's) reads the disk's
	// whole use as its own, and the kubelet deleted the pause image of an
	// offline cluster — which no registry gives back.
	ImageGCHighPercent, ImageGCLowPercent int
	// RegistryMirrors are containerd's registry mirrors: a registry host
	// ("registry.k8s.io", "10.0.0.5:5000", or DefaultRegistry for every
	// registry without an entry) → its mirrors (scheme://host[:port], http
	// or https), tried in order before the registry itself: what an
	// air-gapped site pulls through (registry_mirrors.go checks them).
	RegistryMirrors map[string][]string
}

// Network holds the cluster's address ranges.
type Network struct {
	ServiceCIDR string
	PodCIDR     string
	DNSDomain   string
}

// Certificates holds PKI settings (used by the pki kinds of a later issue).
type Certificates struct {
	Validity    time.Duration
	CAValidity  time.Duration
	RenewBefore time.Duration
	ExtraSANs   []string
	// Clients are the client blocks, in the order written: each a
	// certificate of its own (cert.client["NAME"]) and a kubeconfig
	// beside the state (kubeconfig.client["NAME"]).
	Clients []ClientCert
}

// ClientCert is a certificates block's client "NAME": a client
// certificate of the cluster CA, CN "eggo:client:NAME" with Groups as its
// organizations, renewed RenewBefore its expiry, and the kubeconfig
// CLUSTER-NAME.kubeconfig that holds it. A zero Validity or RenewBefore
// takes the kinds' default (720h, and a third of the validity).
type ClientCert struct {
	Name        string // a DNS label, never "admin"
	Groups      []string
	Validity    time.Duration
	RenewBefore time.Duration
	Source      string      // "file.hcl:12" of the client block
	Range       SourceRange // the client block's header
}

// Where is the client block.
func (c ClientCert) Where() SourceRange { return orSource(c.Range, c.Source) }

// Roles a node may have.
var Roles = []string{"master", "worker", "etcd", "loadbalance"}

// Node is one machine of the cluster.
type Node struct {
	Name   string // unique DNS label: the name attribute, else the for_each key, else LABEL-INDEX for count, else the label
	Source string // "file.hcl:12"
	// Ranges locate the node block and its name, address, roles, labels
	// and arch attributes (shared by every instance of a count or
	// for_each block).
	Ranges  SourceRanges
	Address string
	Arch    string // amd64 (default) | arm64 ...; selects packages/<arch>
	Roles   []string
	Labels  map[string]string
	// Taints are kept on the Node ("key=value:Effect"), registered with
	// them; ProviderID is its spec.providerID, which the kubelet
	// registers (--provider-id) and which never changes after.
	Taints     []string
	ProviderID string
	Connection Connection
	DependsOn  []string // names of nodes whose host must be applied first
}

// Connection says how to reach a node.
type Connection struct {
	Type           string // "ssh" (default) or "local"
	User           string
	Port           int
	PrivateKeyFile string // absolute path; "" for none
	PasswordEnv    string // name of an environment variable holding the password; never the password
	Agent          bool   // use $SSH_AUTH_SOCK
	KnownHostsFile string // absolute path; default ~/.ssh/known_hosts
	HostKey        string // "ssh-ed25519 AAAA…" (no comment): the only key the node may present; "" for none
	Sudo           bool
	Timeout        time.Duration // connect timeout
	Retries        int
	Bastion        *Bastion
}

// Bastion is a jump host.
type Bastion struct {
	Host           string
	Port           int
	User           string
	PrivateKeyFile string
	PasswordEnv    string
	HostKey        string // as Connection's: the bastion's own, never inherited
}

// Addons are the add-ons of a cluster, each an addon resource applied with
// kubectl through a master.
type Addons struct {
	// CoreDNS enables the built-in addon.coredns: the cluster's DNS at the
	// tenth address of the service range, from the bundle's coredns.tar.
	CoreDNS bool
	// SkipKubeProxy leaves kube-proxy off the workers (kube_proxy = false):
	// for a network add-on that replaces it (its manifest brings its own).
	SkipKubeProxy bool
	// CoreDNSReplicas is its Deployment's replicas (at least 1).
	CoreDNSReplicas int
	// CoreDNSUpstream is where CoreDNS forwards names outside the cluster:
	// "/etc/resolv.conf" (the node's resolvers, the default) or IP[:port]
	// entries. Empty: CoreDNS answers the cluster's names only, for hosts
	// without any resolver (CoreDNS refuses to start forwarding to none).
	CoreDNSUpstream []string
	// Manifests are the user's manifest files, in declaration order.
	Manifests []AddonManifest
}

// AddonManifest is one user manifest file: the resource addon.<Name>.
type AddonManifest struct {
	Name   string      // the file's base name without its extension
	Path   string      // absolute path
	Source string      // "file.hcl:12" of the manifests attribute
	Range  SourceRange // this file's element of the manifests list
}

// VersionSpan is the oldest and the newest of a set of versions.
type VersionSpan struct{ Oldest, Newest string }
