package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// componentFiles are the bundle files (paths under packages/<arch>) a
// component cannot run without. A bundle that lacks one is refused when
// the plan is made: installing the rest would leave a node that cannot
// start, and an existing node would have the file removed as "no longer
// in the bundle".
var componentFiles = map[string][]string{
	CompEtcd:              {"usr/local/bin/etcd", "usr/local/bin/etcdctl"},
	CompAPIServer:         {"usr/local/bin/kube-apiserver", "usr/local/bin/kubectl"},
	CompControllerManager: {"usr/local/bin/kube-controller-manager"},
	CompScheduler:         {"usr/local/bin/kube-scheduler"},
	CompContainerd: {
		"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr", "usr/local/bin/runc",
		"opt/cni/bin/bridge", "opt/cni/bin/host-local", "opt/cni/bin/loopback", "opt/cni/bin/portmap",
		"var/lib/eggo/images/pause.tar",
	},
	CompKubelet:   {"usr/local/bin/kubelet", "usr/local/bin/kubectl"},
	CompKubeProxy: {"usr/local/bin/kube-proxy"},
}

// checkBundleFiles reports the first file a component on node n needs that
// the cluster's bundle lacks; addr is the resource that runs it. Without a bundle (packages unset) the
// programs are the operator's to install, and nothing is checked.
func checkBundleFiles(c *Cluster, n Node, component, addr string) error {
	if c.Packages == "" {
		return nil
	}
	for _, rel := range componentFiles[component] {
		if p, why := bundleLacks(c, n, rel); why != "" {
			return fmt.Errorf("%s: node %q needs %s from the package bundle for %s, but %s (%s)",
				n.Source, n.Name, "/"+rel, addr, why, p)
		}
	}
	return nil
}

// bundleLacks says why the bundle has no regular file rel for node n's
// arch ("" when it has), and where it looked.
func bundleLacks(c *Cluster, n Node, rel string) (path, why string) {
	path = filepath.Join(c.Packages, nodeArch(n), filepath.FromSlash(rel))
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return path, "it is missing"
	case !st.Mode().IsRegular():
		return path, "it is not a regular file"
	}
	return path, ""
}

// RequiredBundleFiles lists every bundle file (a path under packages/<arch>)
// some component or add-on needs: the contents of a complete bundle for a
// node with every role, and CoreDNS on.
func RequiredBundleFiles() []string {
	seen := map[string]bool{CoreDNSArchive: true}
	for _, files := range componentFiles {
		for _, f := range files {
			seen[f] = true
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
