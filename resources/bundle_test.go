package resources

import (
	"slices"
	"strings"
	"testing"
)

func TestRoleTableCoversEveryRole(t *testing.T) {
	for _, c := range bundleLayout {
		for _, r := range c.Roles {
			if !slices.Contains(Roles, r) {
				t.Errorf("the bundle layout runs %s on %s, which is not a role", c.Component, r)
			}
		}
	}
	if len(Roles) > 32 {
		t.Errorf("%d roles do not fit a roleSet", len(Roles))
	}
	// What each role's nodes receive, as the bundle layout says it.
	want := map[string][]string{
		"etcd": {"usr/local/bin/etcd", "usr/local/bin/etcdctl", "var/lib/eggo/etcd-image/"},
		"master": {"opt/cni/bin/", "opt/cni/bin/bridge", "opt/cni/bin/flannel", "opt/cni/bin/host-local", "opt/cni/bin/loopback", "opt/cni/bin/portmap",
			"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr", "usr/local/bin/flanneld",
			"usr/local/bin/kube-apiserver", "usr/local/bin/kube-controller-manager", "usr/local/bin/kube-proxy", "usr/local/bin/kube-scheduler",
			"usr/local/bin/kubectl", "usr/local/bin/kubelet", "usr/local/bin/runc", "var/lib/eggo/control-plane/", "var/lib/eggo/images/", "var/lib/eggo/images/pause.tar"},
		"worker": {"opt/cni/bin/", "opt/cni/bin/bridge", "opt/cni/bin/flannel", "opt/cni/bin/host-local", "opt/cni/bin/loopback", "opt/cni/bin/portmap",
			"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr", "usr/local/bin/flanneld", "usr/local/bin/kube-proxy",
			"usr/local/bin/kubectl", "usr/local/bin/kubelet", "usr/local/bin/runc", "var/lib/eggo/images/", "var/lib/eggo/images/pause.tar",
			"var/lib/eggo/images/workload-*"},
		"loadbalance": nil,
	}
	for role, files := range want {
		got := RoleClaims(role)
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, files) {
			t.Errorf("RoleClaims(%s) = %v, want %v", role, got, files)
		}
	}
}

// An image archive the host installs is imported into a running
// containerd; no other file has anything to run after it.
func TestAfterBundleFileInstalled(t *testing.T) {
	if got := AfterBundleFileInstalled("/var/lib/eggo/images/coredns.tar"); !strings.Contains(got, "ctr version") || !strings.Contains(got, "ctr -n k8s.io images import '/var/lib/eggo/images/coredns.tar'") {
		t.Errorf("coredns.tar: %q", got)
	}
	for _, p := range []string{"/usr/local/bin/kubelet", "/var/lib/eggo/images/notes.txt", "/var/lib/eggo/control-plane/kube-apiserver.tar", "/tmp/var/lib/eggo/images/x.tar"} {
		if got := AfterBundleFileInstalled(p); got != "" {
			t.Errorf("%s: %q, want nothing", p, got)
		}
	}
}
