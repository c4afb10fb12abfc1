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
