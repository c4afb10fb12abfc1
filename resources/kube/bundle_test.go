package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// A bundle without a file a node's components need is refused when the
// plan is made, naming the node, its definition, the file and the service.
func TestBundleMissingComponentFile(t *testing.T) {
	packages := t.TempDir()
	for _, rel := range resources.RequiredBundleFiles() {
		{
			p := filepath.Join(packages, "amd64", filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(rel), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes", Packages: packages,
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes: []resources.Node{
			{Name: "m0", Source: "main.hcl:10", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Source: "main.hcl:14", Address: "10.0.0.21", Roles: []string{"worker"}},
		}}
	if _, err := componentServices(c); err != nil {
		t.Fatalf("a complete bundle: %v", err)
	}
	if _, err := (EtcdMember{}).Expand(c); err != nil {
		t.Fatalf("a complete bundle: %v", err)
	}

	if err := os.Remove(filepath.Join(packages, "amd64/usr/local/bin/kubelet")); err != nil {
		t.Fatal(err)
	}
	_, err := componentServices(c)
	if err == nil {
		t.Fatal("a bundle without kubelet was accepted")
	}
	for _, want := range []string{"main.hcl:10", `"m0"`, "/usr/local/bin/kubelet", `service.kubelet["m0"]`, "missing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}

	if err := os.Remove(filepath.Join(packages, "amd64/usr/local/bin/etcdctl")); err != nil {
		t.Fatal(err)
	}
	if _, err := (EtcdMember{}).Expand(c); err == nil || !strings.Contains(err.Error(), "main.hcl:10") || !strings.Contains(err.Error(), "etcdctl") || !strings.Contains(err.Error(), "etcd_member.m0") {
		t.Errorf("etcd without etcdctl: %v", err)
	}

	// No bundle: the operator installs the programs; nothing to check.
	c.Packages = ""
	if _, err := componentServices(c); err != nil {
		t.Errorf("without a bundle: %v", err)
	}
}

// kube_proxy = false leaves kube-proxy off the workers, and add-ons do not
// wait for it.
func TestKubeProxyOptional(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Addons:  resources.Addons{CoreDNS: true, CoreDNSReplicas: 1, SkipKubeProxy: true},
		Nodes: []resources.Node{
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}},
		}}
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Addr == resources.ServiceAddr(resources.CompKubeProxy, "w0") {
			t.Errorf("kube-proxy planned with kube_proxy = false")
		}
	}
}
