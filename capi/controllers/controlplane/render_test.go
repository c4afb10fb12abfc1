package controlplane

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/engine/config"
)

const testHostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHn2BtDkKJ3s9iHd4QJdVbs8QUVTWrbLvLy6Pb3mWUuV"

// The rendered configuration is one eggo itself loads (engine/config, the
// loader of `eggo plan`), saying of each node what its machine and host
// say; a value holding HCL's template syntax stays the string it was.
func TestRenderLoadsInEggo(t *testing.T) {
	hostile := `eggo://clusters/${file("/var/run/eggo/ssh/k/ssh-privatekey")}/%{endif}`
	data, err := Render(Cluster{
		Name: "work", Version: "v1.36.5", APIEndpoint: "10.0.0.100:6443", ServiceCIDR: "10.96.0.0/16", PodCIDR: "10.200.0.0/16",
		Nodes: []Node{
			{Name: "work-md-0-x7k2p", Address: "10.0.0.21", Port: 2222, User: "eggo", Sudo: true, HostKey: testHostKey,
				KeyFile: "/var/run/eggo/ssh/pool-key/ssh-privatekey", Roles: []string{"worker"}, ProviderID: hostile,
				Labels: map[string]string{"pool": "b"}, Taints: []string{"dedicated=gpu:NoSchedule"}},
			{Name: "work-cp-9qz4m", Address: "10.0.0.11", HostKey: testHostKey, KeyFile: "/var/run/eggo/ssh/pool-key/ssh-privatekey",
				Roles: []string{"master", "etcd"}, ProviderID: "eggo://clusters/h1/uid-1"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cluster.hcl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Load(dir, config.VarInput{})
	if diags.HasErrors() {
		t.Fatalf("eggo refuses the rendered configuration: %s\n%s", diags.Error(), data)
	}
	c := cfg.Cluster
	if c.Name != "work" || c.KubernetesVersion != "1.36.5" || c.APIEndpoint != "10.0.0.100:6443" ||
		c.Network.ServiceCIDR != "10.96.0.0/16" || c.Network.PodCIDR != "10.200.0.0/16" || len(c.Nodes) != 2 {
		t.Fatalf("cluster %s %s %s %+v, %d nodes\n%s", c.Name, c.KubernetesVersion, c.APIEndpoint, c.Network, len(c.Nodes), data)
	}
	cp, w := c.Nodes[0], c.Nodes[1] // sorted by name
	if cp.Name != "work-cp-9qz4m" || !reflect.DeepEqual(cp.Roles, []string{"master", "etcd"}) || cp.Connection.User != "root" ||
		cp.Connection.Port != 22 || cp.Connection.Sudo {
		t.Errorf("control-plane node %+v", cp)
	}
	conn := w.Connection
	if w.ProviderID != hostile || !reflect.DeepEqual(w.Taints, []string{"dedicated=gpu:NoSchedule"}) || w.Labels["pool"] != "b" ||
		conn.User != "eggo" || conn.Port != 2222 || !conn.Sudo || conn.PrivateKeyFile != "/var/run/eggo/ssh/pool-key/ssh-privatekey" ||
		conn.HostKey != testHostKey {
		t.Errorf("worker %+v, connection %+v\n%s", w, conn, data)
	}
}

// A name eggo could not give a node is refused, naming the machine.
func TestRenderRefusesNames(t *testing.T) {
	for name, want := range map[string]string{
		"Work-1":                `machine "Work-1": its name is not a DNS label`,
		"w.example":             `machine "w.example": its name is not a DNS label`,
		"0work":                 `machine "0work": its name must start with a letter`,
		strings.Repeat("a", 64): "is not a DNS label",
	} {
		_, err := Render(Cluster{Name: "work", Version: "v1.36.5", Nodes: []Node{{Name: name, Address: "10.0.0.1", Roles: []string{"worker"}}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if _, err := Render(Cluster{Name: "Work", Version: "v1.36.5"}); err == nil || !strings.Contains(err.Error(), `cluster name "Work"`) {
		t.Errorf("a cluster name that is no DNS label: %v", err)
	}
}

func host(name, key string) *infrav1.SSHHost {
	return &infrav1.SSHHost{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "clusters"},
		Spec: infrav1.SSHHostSpec{Pool: "p", Address: "10.0.0." + name[1:], Port: 22, User: "root", HostKey: testHostKey,
			SSHKeySecretRef: infrav1.SecretReference{Name: key}, NodeLabels: map[string]string{"rack": "r1", "pool": "host"}}}
}

// The EggoCluster of a control plane: named after the Cluster, Manual
// approval, destroyed with it, its configuration rendered from the
// machines (the machine's labels over its host's), the Cluster's networks
// unless the control plane names its own, and the one SSH key Secret the
// hosts share; hosts naming two keys are refused, naming both.
func TestDesiredEggoCluster(t *testing.T) {
	cp := &cpv1.EggoControlPlane{Spec: cpv1.EggoControlPlaneSpec{Version: "v1.36.5", Eggo: cpv1.EggoSpec{
		Bundle: eggov1.BundleSource{Path: "v1.36.5"}, Recipients: []string{"age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"},
		Network: cpv1.NetworkSpec{PodCIDR: "10.200.0.0/16"}}}}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "work", Namespace: "clusters"}}
	cluster.Spec.ClusterNetwork.Services.CIDRBlocks = []string{"10.96.0.0/16"}
	cluster.Spec.ClusterNetwork.Pods.CIDRBlocks = []string{"10.100.0.0/16"}
	machines := []Machine{
		{Name: "work-cp-a", Host: host("h1", "pool-key"), ProviderID: "eggo://clusters/h1/u1",
			Data: BootstrapData{Roles: []string{"master", "etcd"}}},
		{Name: "work-md-b", Host: host("h2", "pool-key"), ProviderID: "eggo://clusters/h2/u2",
			Data: BootstrapData{Roles: []string{"worker"}, Labels: map[string]string{"pool": "machine"}, Taints: []string{"a:NoSchedule", "node.cluster.x-k8s.io/uninitialized:NoSchedule"}}},
	}
	e, err := DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, APIEndpoint: "10.0.0.100:6443", Machines: machines})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "work" || e.Namespace != "clusters" || e.Spec.Approval != eggov1.ApprovalManual || e.Spec.DeletionPolicy != eggov1.DeletionDestroy ||
		e.Spec.SSHKeySecretRef.Name != "pool-key" || e.Spec.Bundle.Path != "v1.36.5" || e.Labels[clusterv1.ClusterNameLabel] != "work" {
		t.Fatalf("EggoCluster %+v", e)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cluster.hcl"), []byte(*e.Spec.Config.Inline), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Load(dir, config.VarInput{})
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), *e.Spec.Config.Inline)
	}
	c := cfg.Cluster
	if c.Network.ServiceCIDR != "10.96.0.0/16" || c.Network.PodCIDR != "10.200.0.0/16" || cfg.Secrets == nil || len(cfg.Secrets.Recipients) != 1 {
		t.Errorf("network %+v (want the Cluster's services, the control plane's pods), secrets %v", c.Network, cfg.Secrets)
	}
	w := c.Nodes[1]
	if w.Labels["pool"] != "machine" || w.Labels["rack"] != "r1" || !reflect.DeepEqual(w.Taints, []string{"a:NoSchedule"}) || w.Connection.PrivateKeyFile != eggov1.MountSSH+"/ssh-privatekey" ||
		w.ProviderID != "eggo://clusters/h2/u2" || w.Address != "10.0.0.2" {
		t.Errorf("worker %+v", w)
	}

	machines[1].Host = host("h2", "other-key")
	_, err = DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, Machines: machines})
	if err == nil || !strings.Contains(err.Error(), "(h1: pool-key; h2: other-key)") {
		t.Errorf("hosts with two keys: %v", err)
	}
}
