package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/addon"
)

func TestAddonsDefaults(t *testing.T) {
	c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + allInOne}), VarInput{}).Cluster
	want := resources.Addons{CoreDNSReplicas: 1, CoreDNSUpstream: []string{"/etc/resolv.conf"}}
	if !reflect.DeepEqual(c.Addons, want) {
		t.Errorf("addons without a block = %+v, want %+v (CoreDNS off: a bundle may lack its image)", c.Addons, want)
	}
}

func TestAddons(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  addons {
    coredns          = true
    kube_proxy       = false
    coredns_replicas = 1 + 1
    coredns_upstream = []
    manifests        = ["manifests/metrics-server.yaml", "./dashboard.yml"]
  }
}
` + allInOne,
		"manifests/metrics-server.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: metrics}\n",
		"dashboard.yml":                 "apiVersion: v1\nkind: Namespace\nmetadata: {name: dashboard}\n",
	})
	c := mustLoad(t, dir, VarInput{}).Cluster
	a := c.Addons
	if !a.CoreDNS || a.CoreDNSReplicas != 2 || a.CoreDNSUpstream == nil || len(a.CoreDNSUpstream) != 0 {
		t.Errorf("coredns = %v, replicas = %d, upstream = %#v; want true, 2, an empty (not nil) list", a.CoreDNS, a.CoreDNSReplicas, a.CoreDNSUpstream)
	}
	if !a.SkipKubeProxy {
		t.Error("kube_proxy = false did not leave kube-proxy off")
	}
	if len(a.Manifests) != 2 {
		t.Fatalf("manifests = %+v, want 2", a.Manifests)
	}
	for i, want := range []struct{ name, path string }{
		{"metrics-server", filepath.Join(dir, "manifests/metrics-server.yaml")},
		{"dashboard", filepath.Join(dir, "dashboard.yml")},
	} {
		m := a.Manifests[i]
		if m.Name != want.name || m.Path != want.path || !strings.HasSuffix(m.Source, "main.hcl:9") {
			t.Errorf("manifest %d = %+v, want name %q, path %q, source main.hcl:9", i, m, want.name, want.path)
		}
	}

	// The model expands to one addon resource per add-on.
	var addrs []string
	ds, err := addon.Addon{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		addrs = append(addrs, d.Addr)
	}
	if want := []string{"addon.coredns", "addon.metrics-server", "addon.dashboard", "addon.flannel"}; !reflect.DeepEqual(addrs, want) {
		t.Errorf("addon resources = %q, want %q", addrs, want)
	}
}

// CoreDNS needs a Node its pods can run on: without workers the masters
// are tainted, so the configuration is refused at the coredns attribute,
// unless schedule_on_masters lets its pods on the masters.
func TestCoreDNSNeedsASchedulableNode(t *testing.T) {
	config := func(schedule string) string {
		return `
cluster "demo" {
  kubernetes_version = "1.31.4"
  ` + schedule + `
  addons {
    coredns = true
  }
}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`
	}
	_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": config("")}), VarInput{})
	if got := diags.Error(); !strings.Contains(got, "CoreDNS without workers") || !strings.Contains(got, "main.hcl:6") || !strings.Contains(got, "schedule_on_masters") {
		t.Errorf("coredns on tainted masters only: %q, want the coredns line and the way out", got)
	}
	c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": config("schedule_on_masters = true")}), VarInput{}).Cluster
	if !c.ScheduleOnMasters || c.Tainted(c.Nodes[0]) || len(c.SchedulableNodes()) != 1 {
		t.Errorf("schedule_on_masters = true: %t, m0 tainted %t, schedulable %v", c.ScheduleOnMasters, c.Tainted(c.Nodes[0]), c.SchedulableNodes())
	}
	ds, err := addon.Addon{}.Expand(c)
	if err != nil || len(ds) != 2 {
		t.Fatalf("addons on a master that takes workloads: %d, %v; want CoreDNS and flannel's RBAC", len(ds), err)
	}
}
