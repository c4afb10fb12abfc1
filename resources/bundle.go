package resources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
)

// bundleLayout is the one description of the package bundle
// (packages/<arch>/ mirrors a node's root): which component needs which
// files, and on which role's nodes it runs. Both questions asked of the
// bundle are answered from it: which files a node receives (RoleClaims) and
// which files a complete bundle must hold (RequiredBundleFiles).
var bundleLayout = []bundleComponent{
	{CompEtcd, []string{"etcd"}, []string{"usr/local/bin/etcd", "usr/local/bin/etcdctl"}, nil},
	{CompAPIServer, []string{"master"}, []string{"usr/local/bin/kube-apiserver", "usr/local/bin/kubectl"}, nil},
	{CompControllerManager, []string{"master"}, []string{"usr/local/bin/kube-controller-manager"}, nil},
	{CompScheduler, []string{"master"}, []string{"usr/local/bin/kube-scheduler"}, nil},
	// The control plane's images, for the pod implementation only (the
	// host kind leaves them out otherwise; CheckStaticPodImage requires them).
	{CompStaticPodImages, []string{"master"}, nil, []string{ControlPlaneImageDir}},
	// etcd's image, for static-pod etcd only (the same).
	{CompEtcdImage, []string{"etcd"}, nil, []string{EtcdImageDir}},
	{CompContainerd, NodeRoles, []string{
		"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr", "usr/local/bin/runc",
		"opt/cni/bin/bridge", "opt/cni/bin/host-local", "opt/cni/bin/loopback", "opt/cni/bin/portmap",
		"var/lib/eggo/images/pause.tar",
	}, []string{"opt/cni/bin/", "var/lib/eggo/images/"}},
	{CompKubelet, NodeRoles, []string{"usr/local/bin/kubelet", "usr/local/bin/kubectl"}, nil},
	{CompKubeProxy, NodeRoles, []string{"usr/local/bin/kube-proxy"}, nil},
	{CompFlannel, NodeRoles, []string{"usr/local/bin/flanneld", "opt/cni/bin/flannel"}, nil},
	// The workloads' images, for the Nodes that run workloads only
	// (BundleRoles gives masters the worker's files when they do).
	{CompWorkloadImages, []string{"worker"}, nil, []string{WorkloadImages}},
	// The load balancer runs the distribution's haproxy: nothing from the bundle.
}

// ContainerdImageDir is where a Node's image archives are (the bundle's
// var/lib/eggo/images/): its containerd imports every one of them when it
// starts.
const ContainerdImageDir = "/var/lib/eggo/images"

// AfterBundleFileInstalled is the shell a host runs once it has installed
// a new or changed bundle file at path p ("" when there is none). An image
// archive is imported into the host's containerd when it runs: containerd
// imports the directory when it starts only, and a Kubernetes upgrade that
// keeps containerd's program running (1.36 → 1.37: the same containerd,
// another CoreDNS image) would otherwise never see the new image. It is
// imported only when the ctr just installed and the running containerd are
// of one major release: an upgrade 1 → 2 installs containerd 2's ctr while
// containerd 1.6 still runs, and ctr 2 imports through a service 1.6 does
// not have ("unknown service containerd.services.streaming.v1.Streaming");
// that containerd restarts on its new program later in the same apply, and
// imports the whole directory as it starts.
func AfterBundleFileInstalled(p string) string {
	if !strings.HasPrefix(p, ContainerdImageDir+"/") || !strings.HasSuffix(p, ".tar") {
		return ""
	}
	return sameMajorCtr + " && ctr -n k8s.io images import " + shell.Quote(p) + " >/dev/null; true"
}

// sameMajorCtr succeeds when ctr answers and its client and the running
// containerd (server) report one major release: `ctr version` prints a
// Version line for each ("v2.3.7", "1.6.20").
const sameMajorCtr = `ctr version 2>/dev/null | awk '$1 == "Version:" { sub(/^v/, "", $2); split($2, v, "."); m[n++] = v[1] } END { exit !(n == 2 && m[0] == m[1]) }'`

// bundleComponent is one component's part of the bundle.
type bundleComponent struct {
	Component string
	Roles     []string // the roles whose nodes run it
	// Files are the bundle files (paths under packages/<arch>) the component
	// cannot run without. A bundle that lacks one is refused when the plan
	// is made: installing the rest would leave a node that cannot start, and
	// an existing node would have the file removed as "no longer in the
	// bundle".
	Files []string
	// Dirs are directories ("…/") whose whole content goes only to nodes of
	// Roles: CNI plugins and container images beyond the required ones; or
	// name prefixes ("…*") whose files do.
	Dirs []string
}

// ControlPlaneImageDir holds the control plane's image archives in the
// bundle (NAME.tar, registry.k8s.io/NAME:VERSION), for the pod
// implementation: masters receive it only then.
const ControlPlaneImageDir = "var/lib/eggo/control-plane/"

// CompStaticPodImages names the control plane's images in the bundle layout.
const CompStaticPodImages = "control-plane-images"

// ControlPlaneImage is the bundle file of a control-plane component's image.
func ControlPlaneImage(component string) string { return ControlPlaneImageDir + component + ".tar" }

// EtcdImageDir holds etcd's image archive in the bundle (etcd.tar, the
// minor's KubernetesMinor.Etcd), for static-pod etcd: etcd nodes receive it only then.
const EtcdImageDir = "var/lib/eggo/etcd-image/"

// CompEtcdImage names etcd's image in the bundle layout.
const CompEtcdImage = "etcd-image"

// EtcdImageArchive is the bundle file of etcd's image.
const EtcdImageArchive = EtcdImageDir + "etcd.tar"

// WorkloadImages claims the image archives of the cluster's workloads
// (your applications', the conformance tests'): images/workload-*.tar.
// Every Node's containerd imports images/*.tar at start, but only the
// Nodes that run workloads receive these — the workers, and the masters
// when they schedule workloads — so a master's disk does not hold images
// it never runs.
const WorkloadImages = "var/lib/eggo/images/workload-*"

// CompWorkloadImages names the workloads' images in the bundle layout.
const CompWorkloadImages = "workload-images"

// BundleRoles are the roles that choose node n's bundle files: its own,
// and the worker's for a master of a cluster that schedules workloads on
// its masters (schedule_on_masters), which runs what workers run.
func BundleRoles(c *Cluster, n Node) []string {
	if c.ScheduleOnMasters && n.HasRole("master") && !n.HasRole("worker") {
		return append(slices.Clone(n.Roles), "worker")
	}
	return n.Roles
}

// UnusedBundleDirs are the bundle's directories a cluster never runs
// anything from, which no node receives: the control plane's images unless
// it runs as static pods, etcd's unless etcd does.
func UnusedBundleDirs(c *Cluster) []string {
	var out []string
	if !c.StaticPods() {
		out = append(out, ControlPlaneImageDir)
	}
	if !c.EtcdStaticPods() {
		out = append(out, EtcdImageDir)
	}
	return out
}

// CoreDNSArchive is the bundle file that carries the minor's CoreDNS image, under each
// arch's tree; containerd imports it on every worker.
const CoreDNSArchive = "var/lib/eggo/images/coredns.tar"

// RoleClaims says which files of the package bundle a role needs, as paths
// under the target root; an entry ending in "/" claims everything under
// that directory. A bundle file no role claims goes to every node: that is
// how users ship their own tools.
func RoleClaims(role string) []string {
	var out []string
	for _, c := range bundleLayout {
		if slices.Contains(c.Roles, role) {
			out = append(out, c.Files...)
			out = append(out, c.Dirs...)
		}
	}
	return out
}

// CheckBundleFiles reports the first file a component on node n needs that
// the cluster's bundle lacks; addr is the resource that runs it. Without a
// bundle (packages unset) the programs are the operator's to install, and
// nothing is checked. While c is indexed, an arch's bundle is checked
// once per component: every worker asks the same.
func CheckBundleFiles(c *Cluster, n Node, component, addr string) error {
	if c.Packages == "" {
		return nil
	}
	complete := Shared(c, bundleComplete{NodeArch(n), component}, func() bool { return checkBundleFiles(c, n, component, addr) == nil })
	if complete {
		return nil
	}
	return checkBundleFiles(c, n, component, addr)
}

// bundleComplete keys Shared's answer to whether an arch's bundle holds
// every file of a component.
type bundleComplete struct{ arch, component string }

func checkBundleFiles(c *Cluster, n Node, component, addr string) error {
	for _, bc := range bundleLayout {
		if bc.Component != component {
			continue
		}
		for _, rel := range bc.Files {
			if err := CheckBundleFile(c, n, rel, addr); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckBundleFile reports that the bundle lacks rel, which addr on node n
// needs (nil without a bundle, or when it has it).
func CheckBundleFile(c *Cluster, n Node, rel, addr string) error {
	if c.Packages == "" {
		return nil
	}
	if p, why := BundleLacks(c, n, rel); why != "" {
		// The node's roles call for the file.
		return Blame(n.At("roles"), "Missing file in the package bundle",
			"node %q needs %s from the package bundle for %s, but %s (%s)", n.Name, "/"+rel, addr, why, p)
	}
	return nil
}

// BundleLacks says why the bundle has no regular file rel for node n's
// arch ("" when it has), and where it looked.
func BundleLacks(c *Cluster, n Node, rel string) (path, why string) {
	path = filepath.Join(c.Packages, NodeArch(n), filepath.FromSlash(rel))
	if c.topo != nil {
		// Every node of a role asks for the same files while the cluster
		// expands: one stat a file.
		return path, c.topo.lacks(path)
	}
	return path, lacks(path)
}

func lacks(path string) string {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "it is missing"
	case !st.Mode().IsRegular():
		return "it is not a regular file"
	}
	return ""
}

// RequiredBundleFiles lists every bundle file (a path under packages/<arch>)
// some component or add-on needs: the contents of a complete bundle for a
// node with every role, and CoreDNS on.
func RequiredBundleFiles() []string {
	out := []string{CoreDNSArchive}
	for _, c := range bundleLayout {
		out = append(out, c.Files...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Claims reports whether rel is claimed by claim: the same path, a path
// under a claimed directory ("…/"), or one that starts with a claimed
// name prefix ("…*"). Where claims of several roles match a file, the
// longest decides (host's claimedBy): images/workload-* is the workers', not
// every Node's images/.
func Claims(claim, rel string) bool {
	if prefix, ok := strings.CutSuffix(claim, "*"); ok {
		return strings.HasPrefix(rel, prefix)
	}
	return rel == claim || (strings.HasSuffix(claim, "/") && strings.HasPrefix(rel, claim))
}
