package resources

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The shared names: the addresses, components, certificates and CAs that
// more than one family (and the engine) refer to. A kind's own attribute
// names stay with the kind.

// Components are the services eggo runs, by role. Each owns the directory
// config_dir/<component>, so two components on one node never share a
// file and deleting one never takes a file the other needs.
const (
	CompEtcd              = "etcd"
	CompAPIServer         = "kube-apiserver"
	CompControllerManager = "kube-controller-manager"
	CompScheduler         = "kube-scheduler"
	CompLoadBalancer      = "kube-lb"
	CompContainerd        = "containerd"
	CompKubelet           = "kubelet"
	CompKubeProxy         = "kube-proxy"
)

// NodeComponents are every component a node can run as a service (the
// pod routes only in the state of older clusters): with ServiceAddr, the
// addresses of a node's services.
var NodeComponents = []string{CompEtcd, CompAPIServer, CompControllerManager, CompScheduler, CompLoadBalancer,
	CompContainerd, CompKubelet, CompKubeProxy, CompFlannel, CompPodRoutes}

// ServiceAddr is a service's address: service.kubelet["w0"].
func ServiceAddr(component, node string) string {
	return fmt.Sprintf("service.%s[%q]", component, node)
}

// CompFlannel is the pod network on every worker: flannel's flanneld with
// its VXLAN backend and Kubernetes subnet manager. It reads each Node's
// spec.podCIDR (set by eggo from the state, k8s_node) and learns the other
// nodes from the API, so no node's configuration names another node.
const CompFlannel = "flanneld"

// CompPodRoutes is the pod network eggo ran before flannel: a oneshot of
// host-gw routes on every worker. It is only deleted now (its cleanup is
// eggo's code still, resources/kube/service_scripts.go: never the state's).
const CompPodRoutes = "eggo-pod-routes"

// Names of the certificates. The per-node ones (apiserver, etcd_server,
// etcd_peer, kubelet) have one instance per node of their role; client
// has one per client block, keyed by its name rather than a node's.
const (
	CertAPIServer              = "apiserver"                // per master: kube-apiserver's serving certificate
	CertAPIServerKubeletClient = "apiserver_kubelet_client" // kube-apiserver → kubelets
	CertAPIServerEtcdClient    = "apiserver_etcd_client"    // kube-apiserver → etcd (etcd CA)
	CertFrontProxyClient       = "front_proxy_client"       // aggregation layer (front-proxy CA)
	CertEtcdServer             = "etcd_server"              // per etcd node (etcd CA)
	CertEtcdPeer               = "etcd_peer"                // per etcd node (etcd CA)
	CertKubelet                = "kubelet"                  // per worker
	CertAdmin                  = "admin"                    // the operator's kubeconfig
	CertControllerManager      = "controller_manager"
	CertScheduler              = "scheduler"
	CertKubeProxy              = "kube_proxy"
	CertFlannel                = "flannel" // flanneld on every worker (one identity, eggo:flannel)
	CertClient                 = "client"  // per client block of certificates: cert.client["NAME"]
)

// CertAddr is the address of a certificate: `cert.admin` for a
// cluster-wide one (node ""), `cert.apiserver["m0"]` for a node's, quoted
// the way Terraform writes instance keys.
func CertAddr(name, node string) string {
	if node == "" {
		return "cert." + name
	}
	return fmt.Sprintf("cert.%s[%q]", name, node)
}

// Names of the pki resources.
const (
	PKIClusterCA      = "cluster_ca"      // signs the apiserver, kubelets and the control-plane clients
	PKIEtcdCA         = "etcd_ca"         // signs etcd's server and peer certificates and its clients
	PKIFrontProxyCA   = "front_proxy_ca"  // signs the aggregation layer's client certificate
	PKIServiceAccount = "service_account" // the key pair service-account tokens are signed with
)

// PKIAddr is the address of a pki resource: PKIAddr(PKIClusterCA) is
// "pki.cluster_ca".
func PKIAddr(name string) string { return "pki." + name }

// AddonAddr is an add-on's address: addon.coredns.
func AddonAddr(name string) string { return "addon." + name }

// AddonNameOf is the add-on name of a manifest file: its base name without
// the extension (manifests/metrics-server.yaml → metrics-server).
func AddonNameOf(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// KindHost is the host kind's name: the resource whose create or delete is
// a node's join or delete, which hooks wrap.
const KindHost = "host"

// HostAddr is a node's host resource: host.w0.
func HostAddr(node string) string { return KindHost + "." + node }

// Attributes of a host's record that other kinds read: how to reach the
// node and what it is (a hook of a node that has left the configuration
// finds them there).
const (
	HostAttrAddress    = "address"
	HostAttrArch       = "arch"
	HostAttrRoles      = "roles"
	HostAttrConnection = "connection"
	// HostAttrFacts is what the host's last refresh or apply learned of
	// it (os, kernel, arch, cgroup): read-only, never from config.
	HostAttrFacts = "facts"
)

// Facts of a host that other kinds judge a plan by.
const (
	// HostFactCgroup is the cgroup hierarchy the host mounts at
	// /sys/fs/cgroup: "v2" (unified) or "v1" (legacy or hybrid).
	HostFactCgroup = "cgroup"
)
