package resources

import (
	"os"
	"os/exec"
	"path/filepath"
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

// The import runs only when ctr and the running containerd are of one
// major release (an upgrade 1 → 2 installs ctr 2 beside a running 1.6,
// which cannot take its import); run with sh -e as the host runs it, a
// fake ctr on PATH.
func TestAfterBundleFileInstalledSkipsAnotherMajor(t *testing.T) {
	for _, c := range []struct {
		client, server string
		importFails    bool
		imported, ok   bool
	}{
		{"v2.3.7", "2.3.7", false, true, true},
		{"1.6.20", "1.6.20", false, true, true},
		{"v2.3.7", "1.6.20", false, false, true},
		{"v2.3.7", "", false, false, true}, // containerd not running
		{"v2.3.7", "2.3.7", true, true, false},
	} {
		dir := t.TempDir()
		server := ""
		if c.server != "" {
			server = "Server:\n  Version:  " + c.server + "\n"
		}
		fail := ""
		if c.importFails {
			fail = "exit 1"
		}
		ctr := "#!/bin/sh\nif [ \"$1\" = version ]; then printf 'Client:\\n  Version:  " + c.client + "\\n" + strings.ReplaceAll(server, "\n", "\\n") + "'; exit 0; fi\n" +
			"touch " + dir + "/imported\n" + fail + "\n"
		if err := os.WriteFile(filepath.Join(dir, "ctr"), []byte(ctr), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-ec", AfterBundleFileInstalled("/var/lib/eggo/images/coredns.tar"))
		cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin"}
		err := cmd.Run()
		_, statErr := os.Stat(filepath.Join(dir, "imported"))
		if imported := statErr == nil; imported != c.imported || (err == nil) != c.ok {
			t.Errorf("client %s, server %q, import fails %v: imported %v, error %v; want imported %v, ok %v",
				c.client, c.server, c.importFails, imported, err, c.imported, c.ok)
		}
	}
}
