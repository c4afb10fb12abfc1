package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
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
	c := loadInEggo(t, data)
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
// hosts share (TestDesiredEggoClusterSSHKeys: hosts naming several).
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
	cfg := loadConfigInEggo(t, []byte(*e.Spec.Config.Inline))
	c := cfg.Cluster
	if c.Network.ServiceCIDR != "10.96.0.0/16" || c.Network.PodCIDR != "10.200.0.0/16" || cfg.Secrets == nil || len(cfg.Secrets.Recipients) != 1 {
		t.Errorf("network %+v (want the Cluster's services, the control plane's pods), secrets %v", c.Network, cfg.Secrets)
	}
	if !c.Addons.CoreDNS || !reflect.DeepEqual(c.Addons.CoreDNSUpstream, []string{"/etc/resolv.conf"}) || c.Addons.SkipKubeProxy ||
		!reflect.DeepEqual(c.Runtime, resources.Runtime{}) {
		t.Errorf("addons %+v (want CoreDNS on by default, eggo's upstream, kube-proxy), runtime %+v (want eggo's)", c.Addons, c.Runtime)
	}
	w := c.Nodes[1]
	if w.Labels["pool"] != "machine" || w.Labels["rack"] != "r1" || !reflect.DeepEqual(w.Taints, []string{"a:NoSchedule"}) || w.Connection.PrivateKeyFile != eggov1.SSHKeyPath("pool-key") ||
		w.ProviderID != "eggo://clusters/h2/u2" || w.Address != "10.0.0.2" {
		t.Errorf("worker %+v", w)
	}

	if len(e.Spec.AdditionalSSHKeySecretRefs) != 0 {
		t.Errorf("hosts sharing one key: additionalSSHKeySecretRefs %v", e.Spec.AdditionalSSHKeySecretRefs)
	}
}

// Hosts naming different SSH key Secrets: the first by name is
// sshKeySecretRef, the others additionalSSHKeySecretRefs (sorted, each
// once), and each node connects with its host's key at the path the
// EggoCluster mounts it; more Secrets than an EggoCluster mounts are
// refused.
func TestDesiredEggoClusterSSHKeys(t *testing.T) {
	cp := &cpv1.EggoControlPlane{Spec: cpv1.EggoControlPlaneSpec{Version: "v1.36.5", Eggo: cpv1.EggoSpec{Bundle: eggov1.BundleSource{Path: "v1.36.5"}}}}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "work", Namespace: "clusters"}}
	cluster.Spec.ClusterNetwork.Services.CIDRBlocks = []string{"10.96.0.0/16"}
	cluster.Spec.ClusterNetwork.Pods.CIDRBlocks = []string{"10.100.0.0/16"}
	machine := func(name, h, key string, roles ...string) Machine {
		return Machine{Name: name, Host: host(h, key), ProviderID: "eggo://clusters/" + h + "/u", Data: BootstrapData{Roles: roles}}
	}
	machines := []Machine{
		machine("work-cp-a", "h1", "pool-key", "master", "etcd"),
		machine("work-md-b", "h2", "rack-b-key", "worker"),
		machine("work-md-c", "h3", "pool-key", "worker"),
		machine("work-md-d", "h4", "other-key", "worker"),
	}
	e, err := DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, APIEndpoint: "10.0.0.100:6443", Machines: machines})
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.LocalObjectReference{{Name: "pool-key"}, {Name: "rack-b-key"}}
	if e.Spec.SSHKeySecretRef.Name != "other-key" || !reflect.DeepEqual(e.Spec.AdditionalSSHKeySecretRefs, want) {
		t.Fatalf("sshKeySecretRef %v additionalSSHKeySecretRefs %v: want other-key, then pool-key and rack-b-key", e.Spec.SSHKeySecretRef, e.Spec.AdditionalSSHKeySecretRefs)
	}
	// The Machines in another order: the same spec.
	slices.Reverse(machines)
	again, err := DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, APIEndpoint: "10.0.0.100:6443", Machines: machines})
	if err != nil || !reflect.DeepEqual(again.Spec, e.Spec) {
		t.Errorf("the Machines reversed: %v, spec %+v, want %+v", err, again.Spec, e.Spec)
	}
	cfg := loadConfigInEggo(t, []byte(*e.Spec.Config.Inline))
	files := map[string]string{
		"work-cp-a": "/var/run/eggo/ssh-keys/pool-key/ssh-privatekey", "work-md-b": "/var/run/eggo/ssh-keys/rack-b-key/ssh-privatekey",
		"work-md-c": "/var/run/eggo/ssh-keys/pool-key/ssh-privatekey", "work-md-d": "/var/run/eggo/ssh-keys/other-key/ssh-privatekey",
	}
	for _, n := range cfg.Cluster.Nodes {
		if n.Connection.PrivateKeyFile != files[n.Name] {
			t.Errorf("node %s: private_key_file %s, want %s", n.Name, n.Connection.PrivateKeyFile, files[n.Name])
		}
	}
	// A host still claimed by a Machine being deleted (eggo has yet to
	// remove its node): its key stays mounted, and the others keep their
	// paths though it now sorts first.
	held, err := DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, APIEndpoint: "10.0.0.100:6443", Machines: machines,
		HeldKeys: []string{"a-leaving-key", "pool-key"}})
	want = []corev1.LocalObjectReference{{Name: "other-key"}, {Name: "pool-key"}, {Name: "rack-b-key"}}
	if err != nil || held.Spec.SSHKeySecretRef.Name != "a-leaving-key" || !reflect.DeepEqual(held.Spec.AdditionalSSHKeySecretRefs, want) ||
		*held.Spec.Config.Inline != *e.Spec.Config.Inline {
		t.Errorf("with a held key: %v, sshKeySecretRef %v additionalSSHKeySecretRefs %v, the configuration changed: %t",
			err, held.Spec.SSHKeySecretRef, held.Spec.AdditionalSSHKeySecretRefs, *held.Spec.Config.Inline != *e.Spec.Config.Inline)
	}
	if len(cfg.Cluster.Nodes) != len(files) {
		t.Errorf("%d nodes, want %d", len(cfg.Cluster.Nodes), len(files))
	}

	for i := 0; i < 17; i++ {
		machines = append(machines, machine(fmt.Sprintf("work-md-x%d", i), fmt.Sprintf("h%d", 10+i), fmt.Sprintf("key-%02d", i), "worker"))
	}
	_, err = DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, Machines: machines})
	if err == nil || !strings.Contains(err.Error(), "name 20 SSH key Secrets: its EggoCluster mounts 17 at most") {
		t.Errorf("hosts naming 20 keys: %v", err)
	}
}

// settingsCluster is a cluster of one master and, with worker, one worker.
func settingsCluster(worker bool, a Addons, r Runtime) Cluster {
	c := Cluster{Name: "work", Version: "v1.36.5", Addons: a, Runtime: r, Nodes: []Node{
		{Name: "work-cp-a", Address: "10.0.0.11", HostKey: testHostKey, KeyFile: "/k", Roles: []string{"master", "etcd"}}}}
	if worker {
		c.Nodes = append(c.Nodes, Node{Name: "work-md-b", Address: "10.0.0.21", HostKey: testHostKey, KeyFile: "/k", Roles: []string{"worker"}})
	}
	return c
}

// loadInEggo loads a rendered configuration with eggo's own loader.
func loadInEggo(t *testing.T, data []byte) *resources.Cluster {
	t.Helper()
	return loadConfigInEggo(t, data).Cluster
}

// loadConfigInEggo is the whole configuration eggo loads (its secrets
// block too).
func loadConfigInEggo(t *testing.T, data []byte) *config.Config {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cluster.hcl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Load(dir, config.VarInput{})
	if diags.HasErrors() {
		t.Fatalf("eggo refuses the rendered configuration: %s\n%s", diags.Error(), data)
	}
	return cfg
}

// The addons and runtime blocks say what is set and nothing else, and eggo
// reads them as the control plane meant: CoreDNS on with a worker (left
// out without one, where eggo would refuse the configuration), an empty
// upstream list apart from an unset one, the runtime's every attribute.
func TestRenderAddonsAndRuntime(t *testing.T) {
	defaults := resources.Addons{CoreDNSReplicas: 1, CoreDNSUpstream: []string{"/etc/resolv.conf"}}
	full := Runtime{RestrictOOMScoreAdj: ptr.To(true), CgroupRootPerNode: ptr.To(true),
		EvictionHard:       map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
		ImageGCHighPercent: ptr.To[int32](70), ImageGCLowPercent: ptr.To[int32](60),
		RegistryMirrors: map[string][]string{"docker.io": {"http://10.0.0.5:5000", "https://m.example"}, "_default": {"http://10.0.0.6:5000"}}}
	for _, c := range []struct {
		name        string
		cluster     Cluster
		has, hasNot []string // in the rendered configuration
		addons      resources.Addons
		runtime     resources.Runtime
	}{
		{"nothing set", settingsCluster(true, Addons{}, Runtime{}), nil, []string{"addons", "runtime"}, resources.Addons{CoreDNSReplicas: 1, CoreDNSUpstream: []string{"/etc/resolv.conf"}}, resources.Runtime{}},
		{"CoreDNS with a worker", settingsCluster(true, Addons{CoreDNS: ptr.To(true)}, Runtime{}), []string{"addons {", "coredns = true"},
			[]string{"coredns_upstream", "kube_proxy", "runtime"}, resources.Addons{CoreDNS: true, CoreDNSReplicas: 1, CoreDNSUpstream: defaults.CoreDNSUpstream}, resources.Runtime{}},
		{"CoreDNS without a worker is left out", settingsCluster(false, Addons{CoreDNS: ptr.To(true)}, Runtime{}), nil, []string{"addons", "coredns"}, defaults, resources.Runtime{}},
		{"CoreDNS without a worker, other add-on settings kept", settingsCluster(false, Addons{CoreDNS: ptr.To(true), KubeProxy: ptr.To(false)}, Runtime{}),
			[]string{"kube_proxy = false"}, []string{"coredns"}, resources.Addons{SkipKubeProxy: true, CoreDNSReplicas: 1, CoreDNSUpstream: defaults.CoreDNSUpstream}, resources.Runtime{}},
		{"CoreDNS off", settingsCluster(true, Addons{CoreDNS: ptr.To(false)}, Runtime{}), []string{"coredns = false"}, nil, defaults, resources.Runtime{}},
		{"cluster names only", settingsCluster(true, Addons{CoreDNS: ptr.To(true), CoreDNSUpstream: &[]string{}, CoreDNSReplicas: ptr.To[int32](3)}, Runtime{}),
			[]string{"coredns_upstream = []", "coredns_replicas = 3"}, nil, resources.Addons{CoreDNS: true, CoreDNSReplicas: 3, CoreDNSUpstream: []string{}}, resources.Runtime{}},
		{"upstreams", settingsCluster(true, Addons{CoreDNS: ptr.To(true), CoreDNSUpstream: &[]string{"10.0.0.53", "[fd00::53]:5353"}, KubeProxy: ptr.To(true)}, Runtime{}),
			[]string{`coredns_upstream = ["10.0.0.53", "[fd00::53]:5353"]`, "kube_proxy = true"}, nil,
			resources.Addons{CoreDNS: true, CoreDNSReplicas: 1, CoreDNSUpstream: []string{"10.0.0.53", "[fd00::53]:5353"}}, resources.Runtime{}},
		{"the whole runtime", settingsCluster(true, Addons{CoreDNS: ptr.To(false)}, full),
			[]string{"runtime {", "restrict_oom_score_adj = true", "cgroup_root_per_node = true", `"memory.available" = "100Mi"`, "image_gc_high_percent = 70", "image_gc_low_percent = 60", "registry_mirrors"}, nil,
			defaults, resources.Runtime{RestrictOOMScoreAdj: true, CgroupRootPerNode: true, EvictionHard: full.EvictionHard, ImageGCHighPercent: 70, ImageGCLowPercent: 60, RegistryMirrors: full.RegistryMirrors}},
		{"one runtime attribute", settingsCluster(true, Addons{CoreDNS: ptr.To(false)}, Runtime{ImageGCHighPercent: ptr.To[int32](90)}),
			[]string{"image_gc_high_percent = 90"}, []string{"image_gc_low", "eviction_hard", "restrict_oom", "cgroup_root", "registry_mirrors"}, defaults, resources.Runtime{ImageGCHighPercent: 90}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := Render(c.cluster)
			if err != nil {
				t.Fatal(err)
			}
			hcl := string(data)
			flat := strings.Join(strings.Fields(hcl), " ") // hclwrite aligns the = of neighbours
			for _, s := range c.has {
				if !strings.Contains(flat, s) {
					t.Errorf("no %q in\n%s", s, hcl)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(hcl, s) {
					t.Errorf("%q in\n%s", s, hcl)
				}
			}
			got := loadInEggo(t, data)
			if !reflect.DeepEqual(got.Addons, c.addons) {
				t.Errorf("eggo reads addons %#v, want %#v\n%s", got.Addons, c.addons, hcl)
			}
			if !reflect.DeepEqual(got.Runtime, c.runtime) {
				t.Errorf("eggo reads runtime %#v, want %#v\n%s", got.Runtime, c.runtime, hcl)
			}
		})
	}
}

// A value holding HCL's template syntax, in any attribute of the addons
// and runtime blocks, even a map key, is written as the string it is: read
// back without any function or variable, each is that string.
func TestRenderSettingsStayLiterals(t *testing.T) {
	hostile := `${file("/etc/shadow")}`
	tmpl := `%{if true}x%{endif}`
	data, err := Render(settingsCluster(true, Addons{CoreDNS: ptr.To(true), CoreDNSUpstream: &[]string{hostile, tmpl}},
		Runtime{EvictionHard: map[string]string{"memory.available": hostile, hostile: tmpl},
			RegistryMirrors: map[string][]string{hostile: {tmpl, hostile}}}))
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(data, "cluster.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), data)
	}
	blocks := map[string]*hclsyntax.Body{}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "cluster" {
			continue
		}
		for _, inner := range b.Body.Blocks {
			blocks[inner.Type] = inner.Body
		}
	}
	value := func(block, name string) cty.Value {
		b := blocks[block]
		if b == nil || b.Attributes[name] == nil {
			t.Fatalf("no %s.%s in\n%s", block, name, data)
		}
		v, diags := b.Attributes[name].Expr.Value(nil) // no functions, no variables
		if diags.HasErrors() {
			t.Fatalf("%s.%s is no literal: %s\n%s", block, name, diags.Error(), data)
		}
		return v
	}
	want := map[string]cty.Value{
		"coredns_upstream": cty.TupleVal([]cty.Value{cty.StringVal(hostile), cty.StringVal(tmpl)}),
		"eviction_hard":    cty.ObjectVal(map[string]cty.Value{"memory.available": cty.StringVal(hostile), hostile: cty.StringVal(tmpl)}),
		"registry_mirrors": cty.ObjectVal(map[string]cty.Value{hostile: cty.TupleVal([]cty.Value{cty.StringVal(tmpl), cty.StringVal(hostile)})}),
	}
	for name, w := range want {
		block := "runtime"
		if name == "coredns_upstream" {
			block = "addons"
		}
		if got := value(block, name); !got.RawEquals(w) {
			t.Errorf("%s = %#v, want %#v\n%s", name, got, w, data)
		}
	}
}

// spec.eggo.addons and spec.eggo.runtime reach the configuration as set:
// coreDNS false turns CoreDNS off, an empty upstream list stays empty.
func TestDesiredEggoClusterSettings(t *testing.T) {
	cp := &cpv1.EggoControlPlane{Spec: cpv1.EggoControlPlaneSpec{Version: "v1.36.5", Eggo: cpv1.EggoSpec{
		Addons: cpv1.AddonsSpec{CoreDNS: ptr.To(false), CoreDNSUpstream: &[]cpv1.DNSUpstream{}, CoreDNSReplicas: ptr.To[int32](2), KubeProxy: ptr.To(false)},
		Runtime: cpv1.RuntimeSpec{RestrictOOMScoreAdj: ptr.To(false), EvictionHard: map[string]cpv1.EvictionThreshold{"pid.available": "5%"},
			ImageGCLowPercent: ptr.To[int32](10), RegistryMirrors: map[string]cpv1.RegistryMirrorList{"docker.io": {"http://10.0.0.5:5000"}}}}}}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "work", Namespace: "clusters"}}
	machines := []Machine{{Name: "work-cp-a", Host: host("h1", "k"), Data: BootstrapData{Roles: []string{"master", "etcd"}}},
		{Name: "work-md-b", Host: host("h2", "k"), Data: BootstrapData{Roles: []string{"worker"}}}}
	e, err := DesiredEggoCluster(Inputs{ControlPlane: cp, Cluster: cluster, Machines: machines})
	if err != nil {
		t.Fatal(err)
	}
	c := loadInEggo(t, []byte(*e.Spec.Config.Inline))
	if want := (resources.Addons{SkipKubeProxy: true, CoreDNSReplicas: 2, CoreDNSUpstream: []string{}}); !reflect.DeepEqual(c.Addons, want) {
		t.Errorf("addons %#v, want %#v", c.Addons, want)
	}
	want := resources.Runtime{EvictionHard: map[string]string{"pid.available": "5%"}, ImageGCLowPercent: 10, RegistryMirrors: map[string][]string{"docker.io": {"http://10.0.0.5:5000"}}}
	if !reflect.DeepEqual(c.Runtime, want) || !strings.Contains(*e.Spec.Config.Inline, "restrict_oom_score_adj = false") {
		t.Errorf("runtime %#v, want %#v\n%s", c.Runtime, want, *e.Spec.Config.Inline)
	}
}
