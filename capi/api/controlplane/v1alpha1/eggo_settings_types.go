package v1alpha1

// The cluster-wide settings of eggo's configuration the control plane
// renders from spec.eggo: the cluster block's addons and runtime blocks
// (engine/config/addons.go and rollout.go say what eggo takes). Every
// field is optional and, but for addons.coreDNS, reaches the
// configuration only when set: unset is eggo's default. The schema
// refuses what eggo would refuse at its plan, so a mistake is named at
// admission; eggo checks every value again.

// AddonsSpec is the cluster block's addons block: eggo's built-in
// add-ons.
type AddonsSpec struct {
	// CoreDNS runs eggo's built-in CoreDNS (the kube-dns Service at the
	// tenth address of the Service range, as kubeadm's). Unset means true:
	// a Cluster API cluster has cluster DNS unless coreDNS is false. Its
	// pods run on workers (the masters are tainted), so while the cluster
	// has no worker Machine the control plane leaves it out of the
	// configuration (eggo refuses CoreDNS with nowhere to run) and adds
	// it in the plan of the first worker.
	// +optional
	CoreDNS *bool `json:"coreDNS,omitempty"`

	// CoreDNSReplicas is the CoreDNS Deployment's replicas (eggo's
	// default: 1).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	CoreDNSReplicas *int32 `json:"coreDNSReplicas,omitempty"`

	// CoreDNSUpstream is where CoreDNS forwards the names outside the
	// cluster, in order: IP addresses, IP:PORT ([IPv6]:PORT), or
	// "/etc/resolv.conf" (the resolvers of the node a CoreDNS pod runs
	// on). Unset (absent or null) is eggo's default, ["/etc/resolv.conf"].
	// An empty list ([]) is not unset: CoreDNS answers the cluster's names
	// only and forwards nothing. (In Go: a pointer to an empty, non-nil
	// slice; a nil slice is sent as null, which is unset.)
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=15
	CoreDNSUpstream *[]DNSUpstream `json:"coreDNSUpstream,omitempty"`

	// KubeProxy runs kube-proxy on the nodes (eggo's default: true);
	// false is for a CNI that replaces it.
	// +optional
	KubeProxy *bool `json:"kubeProxy,omitempty"`
}

// DNSUpstream is one upstream of CoreDNS: an IP address, IP:PORT,
// [IPv6]:PORT, or "/etc/resolv.conf".
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:XValidation:rule="self == '/etc/resolv.conf' || isIP(self) || (self.lastIndexOf(':') > 0 && self.substring(self.lastIndexOf(':') + 1).matches('^[0-9]{1,5}$') && int(self.substring(self.lastIndexOf(':') + 1)) >= 1 && int(self.substring(self.lastIndexOf(':') + 1)) <= 65535 && (self.startsWith('[') ? self.lastIndexOf(']') == self.lastIndexOf(':') - 1 && isIP(self.substring(1, self.lastIndexOf(']'))) : !self.substring(0, self.lastIndexOf(':')).contains(':') && isIP(self.substring(0, self.lastIndexOf(':')))))",message="a CoreDNS upstream is an IP address, IP:PORT, [IPv6]:PORT or \"/etc/resolv.conf\""
type DNSUpstream string

// RuntimeSpec is the cluster block's runtime block: containerd's and the
// kubelet's settings on every node.
// +kubebuilder:validation:XValidation:rule="(has(self.imageGCLowPercent) ? self.imageGCLowPercent : 80) < (has(self.imageGCHighPercent) ? self.imageGCHighPercent : 85)",message="runtime.imageGCLowPercent must be below runtime.imageGCHighPercent (the kubelet's defaults when unset: 80 and 85)"
type RuntimeSpec struct {
	// RestrictOOMScoreAdj is containerd's CRI restrict_oom_score_adj, for
	// hosts (containers, nspawn) that may not lower an OOM score (eggo's
	// default: false).
	// +optional
	RestrictOOMScoreAdj *bool `json:"restrictOOMScoreAdj,omitempty"`

	// CgroupRootPerNode gives each Node's kubelet its own cgroup root, for
	// nodes that share one kernel (eggo's default: false).
	// +optional
	CgroupRootPerNode *bool `json:"cgroupRootPerNode,omitempty"`

	// EvictionHard is the kubelet's evictionHard: eviction signal
	// ("memory.available", "nodefs.available", "nodefs.inodesFree",
	// "imagefs.available", "imagefs.inodesFree", "containerfs.available",
	// "containerfs.inodesFree", "pid.available") → threshold, a quantity
	// ("100Mi") or a percentage ("10%"). Unset: the kubelet's defaults.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=8
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'containerfs.available', 'containerfs.inodesFree', 'pid.available'])",message="runtime.evictionHard's keys are the kubelet's eviction signals: memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, containerfs.available, containerfs.inodesFree, pid.available"
	EvictionHard map[string]EvictionThreshold `json:"evictionHard,omitempty"`

	// ImageGCHighPercent is the disk usage at which the kubelet always
	// collects unused images (the kubelet's default: 85).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	ImageGCHighPercent *int32 `json:"imageGCHighPercent,omitempty"`

	// ImageGCLowPercent is the disk usage image collection brings the
	// disk down to (the kubelet's default: 80); below imageGCHighPercent.
	// At least 1: eggo takes 0 for unset (the kubelet's 80).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=99
	ImageGCLowPercent *int32 `json:"imageGCLowPercent,omitempty"`

	// RegistryMirrors are containerd's registry mirrors: registry host
	// ("docker.io", "10.0.0.5:5000", or "_default" for every registry
	// without its own entry) → the mirrors tried before it, in order, each
	// scheme://host[:port] ("http://10.0.0.5:5000"), without credentials.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k == '_default' || k.matches('^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?([.][a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*(:[0-9]{1,5})?$'))",message="runtime.registryMirrors' keys are registry hosts: a DNS name or an IPv4 address with an optional :port, or \"_default\""
	RegistryMirrors map[string]RegistryMirrorList `json:"registryMirrors,omitempty"`
}

// EvictionThreshold is a kubelet eviction threshold: a quantity (100Mi,
// 2Gi, 1000) or a percentage (10%, 2.5%).
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=32
// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?%|[0-9]+(\.[0-9]+)?([KMGTPE]i?|[kmu]|[eE][0-9]+)?)$`
type EvictionThreshold string

// RegistryMirrorList is one registry's mirrors, tried in order.
// +kubebuilder:validation:MinItems=1
// +kubebuilder:validation:MaxItems=16
// +listType=atomic
type RegistryMirrorList []RegistryMirror

// RegistryMirror is a mirror's endpoint: an http or https URL
// scheme://host[:port], without credentials, path, query or fragment.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=512
// +kubebuilder:validation:Pattern=`^https?://[^/?#@\s]+/?$`
type RegistryMirror string
