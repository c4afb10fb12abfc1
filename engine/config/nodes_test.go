package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestNodeExpansion(t *testing.T) {
	cases := []struct {
		name  string
		nodes string
		want  []string // name=address of each node, in Cluster.Nodes order
	}{
		{
			name: "for_each map keys sorted, each.value",
			nodes: `node "w" {
  for_each = { w2 = "10.0.0.2", w10 = "10.0.0.10", w1 = "10.0.0.1" }
  address  = each.value
  roles    = ["master", "etcd", "worker"]
}`,
			want: []string{"w1=10.0.0.1", "w10=10.0.0.10", "w2=10.0.0.2"},
		},
		{
			name: "for_each set of strings, each.key == each.value",
			nodes: `node "w" {
  for_each = toset(["b.example", "a.example"])
  name     = replace(each.key, ".example", "")
  address  = each.value
  roles    = ["master", "etcd", "worker"]
}`,
			want: []string{"a=a.example", "b=b.example"},
		},
		{
			name: "for_each over objects",
			nodes: `node "w" {
  for_each = { x = { ip = "10.0.0.1", n = "one" }, y = { ip = "10.0.0.2", n = "two" } }
  name     = each.value.n
  address  = each.value.ip
  roles    = ["master", "etcd", "worker"]
}`,
			want: []string{"one=10.0.0.1", "two=10.0.0.2"},
		},
		{
			name: "count ascending as LABEL-INDEX",
			nodes: `node "m" {
  count   = 3
  address = cidrhost("10.0.0.0/24", 11 + count.index)
  roles   = ["master", "etcd"]
}`,
			want: []string{"m-0=10.0.0.11", "m-1=10.0.0.12", "m-2=10.0.0.13"},
		},
		{
			name: "declaration order across blocks; count = 0 adds nothing",
			nodes: `node "z" {
  address = "10.0.0.9"
  roles   = ["master", "etcd"]
}
node "none" {
  count   = 0
  address = "10.0.0.8"
  roles   = ["worker"]
}
node "a" {
  address = "a.example"
  roles   = ["worker"]
}`,
			want: []string{"z=10.0.0.9", "a=a.example"},
		},
		{
			name: "empty for_each next to a plain node",
			nodes: `node "m" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
node "w" {
  for_each = {}
  address  = each.value
  roles    = ["worker"]
}`,
			want: []string{"m=10.0.0.1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + c.nodes}), VarInput{})
			var got []string
			for _, n := range cfg.Cluster.Nodes {
				got = append(got, n.Name+"="+n.Address)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("nodes = %v, want %v", got, c.want)
			}
		})
	}
}

func TestNodeDefaultsAndAttributes(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
node "w0" {
  address = "w0.example"
  arch    = "arm64"
  roles   = ["worker"]
  labels  = { disk = "ssd", zone = "a" }
}
`}), VarInput{})
	m0, w0 := cfg.Cluster.Nodes[0], cfg.Cluster.Nodes[1]
	if m0.Arch != "amd64" || m0.Source != "main.hcl:6" || !reflect.DeepEqual(m0.Roles, []string{"master", "etcd"}) {
		t.Errorf("m0 = %+v", m0)
	}
	if len(m0.Labels) != 0 || m0.Labels == nil {
		t.Errorf("m0 labels = %#v, want an empty map", m0.Labels)
	}
	if w0.Arch != "arm64" || !reflect.DeepEqual(w0.Labels, map[string]string{"disk": "ssd", "zone": "a"}) {
		t.Errorf("w0 = %+v", w0)
	}
}

func TestDependsOn(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + `
locals {
  first_master = node.m[0].address
}
node "lb" {
  address = "10.0.0.5"
  roles   = ["loadbalance"]
}
node "m" {
  count   = 2
  address = "10.0.0.${count.index + 1}"
  roles   = ["master", "etcd"]
  labels  = { lb = node.lb.address }
}
node "w" {
  for_each   = { w0 = "10.0.1.1", w1 = "10.0.1.2" }
  address    = each.value
  roles      = ["worker"]
  depends_on = [node.lb]
}
node "one" {
  address = "10.0.2.1"
  roles   = ["worker"]
  labels  = { peer = node.w["w1"].name }
}
node "via_local" {
  name    = "via-local"
  address = "10.0.2.2"
  roles   = ["worker"]
  labels  = { master = local.first_master }
}
`}), VarInput{})
	want := map[string][]string{
		"lb":        nil,
		"m-0":       {"lb"},
		"m-1":       {"lb"},
		"w0":        {"lb"},
		"w1":        {"lb"},
		"one":       {"w1"},  // a literal index names one instance
		"via-local": {"m-0"}, // through a local value
	}
	for _, n := range cfg.Cluster.Nodes {
		if !reflect.DeepEqual(n.DependsOn, want[n.Name]) && !(len(n.DependsOn) == 0 && len(want[n.Name]) == 0) {
			t.Errorf("%s.DependsOn = %v, want %v", n.Name, n.DependsOn, want[n.Name])
		}
	}
	if got := cfg.Cluster.Nodes[1].Labels["lb"]; got != "10.0.0.5" {
		t.Errorf("node.lb.address = %q", got)
	}
}

func TestNodeValuesInScope(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "v1.31.4"
  api_endpoint       = "${node.lb.address}:6443"
}
node "lb" {
  address = "10.0.0.5"
  roles   = ["loadbalance"]
}
node "m" {
  for_each = { a = "10.0.0.1", b = "10.0.0.2" }
  address  = each.value
  roles    = ["master", "etcd"]
}
output "masters" {
  value = join(",", [for k, m in node.m : "${k}:${m.name}:${m.address}:${m.arch}:${join("+", m.roles)}"])
}
output "cluster" {
  value = "${cluster.name}/${cluster.kubernetes_version}/${cluster.network.pod_cidr}"
}
`}), VarInput{})
	if cfg.Cluster.APIEndpoint != "10.0.0.5:6443" || cfg.Cluster.KubernetesVersion != "1.31.4" {
		t.Errorf("cluster = %+v", cfg.Cluster)
	}
	got := map[string]string{}
	for _, o := range cfg.Outputs {
		got[o.Name] = o.Value.AsString()
	}
	if got["masters"] != "a:a:10.0.0.1:amd64:master+etcd,b:b:10.0.0.2:amd64:master+etcd" {
		t.Errorf("masters = %q", got["masters"])
	}
	if got["cluster"] != "demo/1.31.4/10.244.0.0/16" {
		t.Errorf("cluster = %q", got["cluster"])
	}
	if cfg.Outputs[0].Name != "cluster" {
		t.Errorf("outputs not sorted by name: %v", cfg.Outputs)
	}
}

// A node's taints and provider_id reach the model; a taint or provider ID
// Kubernetes would refuse is refused at its element or attribute.
func TestNodeTaintsAndProviderID(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + `
node "w0" {
  address     = "10.0.0.2"
  roles       = ["worker"]
  taints      = ["dedicated=gpu:NoSchedule", "spot:PreferNoSchedule"]
  provider_id = "eggo://clusters/h1/0b6c1d3e"
}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`}), VarInput{})
	w0 := cfg.Cluster.Nodes[0]
	if !reflect.DeepEqual(w0.Taints, []string{"dedicated=gpu:NoSchedule", "spot:PreferNoSchedule"}) || w0.ProviderID != "eggo://clusters/h1/0b6c1d3e" {
		t.Errorf("w0 taints %q, provider ID %q", w0.Taints, w0.ProviderID)
	}
	for _, c := range []struct{ attrs, summary, detail string }{
		{`taints = ["dedicated=gpu"]`, "Invalid taint", `The taint "dedicated=gpu" has no effect after ':'`},
		{`taints = ["a:NoSchedule", "x=y:Sometimes"]`, "Invalid taint", `The taint "x=y:Sometimes" has the effect "Sometimes"`},
		{`taints = ["-bad:NoSchedule"]`, "Invalid taint", `has the key "-bad", which must start and end with a letter or digit`},
		{`taints = ["a=1:NoSchedule", "a=2:NoSchedule"]`, "Duplicate taint", `The taint "a=2:NoSchedule" repeats a key and effect`},
		{`provider_id = "h1"`, "Invalid provider_id", `provider_id "h1" has no scheme`},
		{`provider_id = "eggo://a b"`, "Invalid provider_id", `holds a space or a control character`},
		{`provider_id = ""`, "Invalid provider_id", `is empty`},
	} {
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": minimal + `
node "w0" {
  address = "10.0.0.2"
  roles   = ["worker"]
  ` + c.attrs + `
}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`}), VarInput{})
		if got := render(nil, diags); !strings.Contains(got, "Error: "+c.summary) || !strings.Contains(got, "main.hcl line 9:") ||
			!strings.Contains(strings.Join(strings.Fields(got), " "), c.detail) {
			t.Errorf("%s: %s\nwant %s at line 9: %s", c.attrs, got, c.summary, c.detail)
		}
	}
}
