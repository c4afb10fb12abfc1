package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// allInOne is a one-node cluster that needs no topology warning.
const allInOne = `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
`

func TestKubeSettingsDefaults(t *testing.T) {
	c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + allInOne}), VarInput{}).Cluster
	if c.MaxUnavailable != 1 {
		t.Errorf("max_unavailable default = %d, want 1", c.MaxUnavailable)
	}
	if c.ExtraArgs == nil || len(c.ExtraArgs) != 0 {
		t.Errorf("extra_args default = %#v, want an empty map", c.ExtraArgs)
	}
	if c.Runtime.RestrictOOMScoreAdj || c.Runtime.CgroupRootPerNode || c.ScheduleOnMasters {
		t.Errorf("runtime %+v, schedule_on_masters %t by default: each must be asked for", c.Runtime, c.ScheduleOnMasters)
	}
}

func TestKubeSettings(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": `
variable "verbosity" {
  default = 2
}
cluster "demo" {
  kubernetes_version = "1.31.4"
  max_unavailable    = 2 + 1
  extra_args = {
    kube-apiserver = { v = var.verbosity, "audit-log-maxage" = "30", "anonymous-auth" = false }
    "kubelet"      = { "max-pods" = 50 }
    containerd     = {}
  }
  schedule_on_masters = true
  runtime {
    restrict_oom_score_adj = true
    cgroup_root_per_node   = true
    eviction_hard          = { "nodefs.available" = "1Gi", "imagefs.available" = "2.5%" }
    image_gc_high_percent  = 100
    image_gc_low_percent   = 95
  }
}
` + allInOne + `
output "settings" {
  value = format("%d %s %s %t %t %t", cluster.max_unavailable, cluster.extra_args.kube-apiserver.v,
    join(",", keys(cluster.extra_args)), cluster.runtime.restrict_oom_score_adj, cluster.runtime.cgroup_root_per_node,
    cluster.schedule_on_masters)
}
`}), VarInput{})
	c := cfg.Cluster
	if c.MaxUnavailable != 3 {
		t.Errorf("max_unavailable = %d, want 3", c.MaxUnavailable)
	}
	want := map[string]map[string]string{
		"kube-apiserver": {"v": "2", "audit-log-maxage": "30", "anonymous-auth": "false"},
		"kubelet":        {"max-pods": "50"},
		"containerd":     {},
	}
	if !reflect.DeepEqual(c.ExtraArgs, want) {
		t.Errorf("extra_args = %#v\nwant %#v", c.ExtraArgs, want)
	}
	if !c.Runtime.RestrictOOMScoreAdj || !c.Runtime.CgroupRootPerNode || !c.ScheduleOnMasters {
		t.Errorf("restrict_oom_score_adj, cgroup_root_per_node, schedule_on_masters = true: read %+v, %t", c.Runtime, c.ScheduleOnMasters)
	}
	if c.Runtime.ImageGCHighPercent != 100 || c.Runtime.ImageGCLowPercent != 95 {
		t.Errorf("image_gc_high_percent, image_gc_low_percent = %d, %d; want 100, 95", c.Runtime.ImageGCHighPercent, c.Runtime.ImageGCLowPercent)
	}
	if want := map[string]string{"nodefs.available": "1Gi", "imagefs.available": "2.5%"}; !reflect.DeepEqual(c.Runtime.EvictionHard, want) {
		t.Errorf("eviction_hard = %v, want %v", c.Runtime.EvictionHard, want)
	}
	if got := cfg.Outputs[0].Value.AsString(); got != "3 2 containerd,kube-apiserver,kubelet true true true" {
		t.Errorf("cluster.* values = %q", got)
	}
}

func TestMaxUnavailableInvalid(t *testing.T) {
	for _, v := range []string{"0", "-1", "1.5", `"two"`} {
		t.Run(v, func(t *testing.T) {
			_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  max_unavailable    = ` + v + `
}
` + allInOne}), VarInput{})
			if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Start.Line != 4 {
				t.Fatalf("want one error on line 4, got %v", diags)
			}
			if v != `"two"` && !strings.Contains(diags[0].Detail, "got "+v) {
				t.Errorf("detail does not show the value: %s", diags[0].Detail)
			}
		})
	}
}

// TestExtraArgsFromVariable: a map that is not written as a literal still
// has its components and flags checked, with errors on the expression.
func TestExtraArgsFromVariable(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": `
variable "args" {
  type = map(map(string))
}
cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args         = var.args
}
` + allInOne})
	c := mustLoad(t, dir, VarInput{Vars: []string{`args={ kube-proxy = { v = 4 } }`}}).Cluster
	if c.ExtraArgs["kube-proxy"]["v"] != "4" {
		t.Fatalf("extra_args = %v", c.ExtraArgs)
	}
	_, diags := loadErrors(t, dir, VarInput{Vars: []string{`args={ kubectl = {}, kubelet = { "--v" = 4 } }`}})
	var summaries []string
	for _, d := range diags {
		summaries = append(summaries, d.Summary)
		if d.Subject == nil || d.Subject.Start.Line != 7 {
			t.Errorf("%s: want the range of the extra_args expression (line 7), got %v", d.Summary, d.Subject)
		}
	}
	if !reflect.DeepEqual(summaries, []string{"Invalid flag name in extra_args", "Unknown component in extra_args"}) &&
		!reflect.DeepEqual(summaries, []string{"Unknown component in extra_args", "Invalid flag name in extra_args"}) {
		t.Errorf("errors = %v", summaries)
	}
}

func TestExtraArgsValueHidden(t *testing.T) {
	_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args         = { etcd = { "initial-cluster-token" = "s3cret\nExecStartPre=/bin/evil" } }
}
` + allInOne}), VarInput{})
	if len(diags) != 1 || diags[0].Summary != "Invalid flag value in extra_args" {
		t.Fatalf("diags = %v", diags)
	}
	if strings.Contains(diags[0].Detail, "s3cret") || strings.Contains(diags[0].Detail, "evil") {
		t.Errorf("the value is echoed: %s", diags[0].Detail)
	}
}

// etcdCluster is a cluster of n master+etcd nodes and one worker.
func etcdCluster(n int) string {
	return minimal + fmt.Sprintf(`
node "m" {
  count   = %d
  address = cidrhost("10.0.0.0/24", 10 + count.index)
  roles   = ["master", "etcd"]
}
node "w0" {
  address = "10.0.1.1"
  roles   = ["worker"]
}
`, n)
}

func TestEtcdMemberCountWarnings(t *testing.T) {
	for n := 1; n <= 10; n++ {
		cfg, diags := Load(writeDir(t, map[string]string{"main.hcl": etcdCluster(n)}), VarInput{})
		if diags.HasErrors() || cfg.Cluster == nil {
			t.Fatalf("%d etcd nodes: %s", n, render(cfg, diags))
		}
		var want string
		switch {
		case n > 7:
			want = "More than 7 etcd nodes"
		case n%2 == 0:
			want = "Even number of etcd nodes"
		}
		if want == "" {
			if len(diags) != 0 {
				t.Errorf("%d etcd nodes: unexpected %v", n, diags)
			}
			continue
		}
		if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || diags[0].Summary != want {
			t.Errorf("%d etcd nodes: want one warning %q, got %v", n, want, diags)
			continue
		}
		if !strings.Contains(diags[0].Detail, fmt.Sprintf("has %d etcd nodes", n)) {
			t.Errorf("%d etcd nodes: the warning does not name the count: %s", n, diags[0].Detail)
		}
	}
}

func TestTopologyErrorsNameTheNodes(t *testing.T) {
	cases := []struct {
		name, nodes string
		want        []string // in the one error's detail
	}{
		{
			name: "three load balancers",
			nodes: `
node "lb" {
  for_each = { a = "10.0.0.5", b = "10.0.0.6", c = "10.0.0.7" }
  address  = each.value
  roles    = ["loadbalance"]
}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}`,
			want: []string{`node.lb["a"] (main.hcl:6)`, `node.lb["b"]`, `node.lb["c"]`, "api_endpoint"},
		},
		{
			name: "workers only",
			nodes: `
node "w" {
  count   = 5
  address = cidrhost("10.0.0.0/24", 10 + count.index)
  roles   = ["worker"]
}`,
			want: []string{"node.w[0] (main.hcl:6)", "node.w[2] (main.hcl:6) and 2 more", "No node has the master role"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": minimal + tc.nodes}), VarInput{})
			if len(diags) != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			for _, w := range tc.want {
				if !strings.Contains(diags[0].Detail, w) {
					t.Errorf("detail lacks %q: %s", w, diags[0].Detail)
				}
			}
		})
	}
}

// TestSeveralLoadBalancersWithEndpoint: a VIP in api_endpoint settles which
// load balancer clients use.
func TestSeveralLoadBalancersWithEndpoint(t *testing.T) {
	cfg, diags := Load(writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  api_endpoint       = "10.0.0.100:6443"
}
node "lb" {
  count   = 2
  address = cidrhost("10.0.0.0/24", 5 + count.index)
  roles   = ["loadbalance"]
}
node "m" {
  count   = 3
  address = cidrhost("10.0.0.0/24", 10 + count.index)
  roles   = ["master", "etcd"]
}
`}), VarInput{})
	if len(diags) != 0 {
		t.Fatalf("diags: %s", render(cfg, diags))
	}
	if got := cfg.Cluster.Endpoint(); got != "10.0.0.100:6443" {
		t.Errorf("endpoint = %q", got)
	}
}

// TestImplementation: binary unless the cluster says pod; anything else is
// an error on the attribute's line that shows the value.
func TestImplementation(t *testing.T) {
	if c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + allInOne}), VarInput{}).Cluster; c.Implementation != "binary" || c.StaticPods() {
		t.Errorf("implementation by default: %q (static pods %t), want binary", c.Implementation, c.StaticPods())
	}
	config := func(v string) string {
		return "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n  implementation     = " + v + "\n}\n" + allInOne
	}
	if c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": config(`"pod"`)}), VarInput{}).Cluster; !c.StaticPods() {
		t.Errorf(`implementation = "pod": %q, not static pods`, c.Implementation)
	}
	_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": config(`"pods"`)}), VarInput{})
	if len(diags) != 1 || diags[0].Summary != "Invalid implementation" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 3 ||
		!strings.Contains(diags[0].Detail, `got "pods"`) {
		t.Errorf(`implementation = "pods": %v, want one error on line 3 showing the value`, diags)
	}
}

// TestEtcdImplementation: etcd is a unit unless the cluster says pod, which
// needs the pod implementation; anything else is an error on its line.
func TestEtcdImplementation(t *testing.T) {
	config := func(lines string) string {
		return "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n" + lines + "}\n" + allInOne
	}
	if c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": config("  implementation = \"pod\"\n")}), VarInput{}).Cluster; c.EtcdStaticPods() {
		t.Errorf("the pod implementation runs etcd as a static pod by default")
	}
	c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": config("  implementation = \"pod\"\n  etcd_implementation = \"pod\"\n")}), VarInput{}).Cluster
	if !c.EtcdStaticPods() {
		t.Errorf(`etcd_implementation = "pod": %q, not static pods`, c.EtcdImplementation)
	}
	for _, tc := range []struct{ lines, summary, detail string }{
		{"  implementation = \"pod\"\n  etcd_implementation = \"pods\"\n", "Invalid etcd_implementation", `got "pods"`},
		{"  etcd_implementation = \"pod\"\n", "Static-pod etcd without static pods", `implementation = "pod"`},
	} {
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": config(tc.lines)}), VarInput{})
		line := strings.Count(tc.lines, "\n") + 2 // the last line of tc.lines, after the cluster line
		if len(diags) != 1 || diags[0].Summary != tc.summary || diags[0].Subject == nil || diags[0].Subject.Start.Line != line ||
			!strings.Contains(diags[0].Detail, tc.detail) {
			t.Errorf("%q: %v, want %q on line %d", tc.lines, diags, tc.summary, line)
		}
	}
}

// TestEvictionHardInvalid: a signal the kubelet does not know and a
// threshold it cannot read are refused at the attribute, naming the key.
func TestEvictionHardInvalid(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{`{ "disk.available" = "1Gi" }`, `eviction_hard["disk.available"] is not a signal`},
		{`{ "nodefs.available" = "lots" }`, `eviction_hard["nodefs.available"] = "lots"`},
	} {
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  runtime {
    eviction_hard = ` + tc.value + `
  }
}
` + allInOne}), VarInput{})
		if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Start.Line != 5 || !strings.Contains(diags[0].Detail, tc.want) {
			t.Errorf("eviction_hard = %s: %v, want one error on line 5 saying %s", tc.value, diags, tc.want)
		}
	}
}

// TestImageGCThresholdsInvalid: a low threshold not under the high one
// (given, or the kubelet's default 85 when unset) is refused at its line.
func TestImageGCThresholdsInvalid(t *testing.T) {
	for _, tc := range []struct{ lines, want string }{
		{"image_gc_high_percent = 90\n    image_gc_low_percent = 90", "image_gc_low_percent (90) must be below image_gc_high_percent (90)"},
		{"image_gc_low_percent = 85", "image_gc_low_percent (85) must be below image_gc_high_percent (85)"},
		{"image_gc_high_percent = 50", "image_gc_high_percent (50) must be above image_gc_low_percent (80"},
	} {
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  runtime {
    ` + tc.lines + `
  }
}
` + allInOne}), VarInput{})
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, tc.want) {
			t.Errorf("%s: %v, want one error saying %s", tc.lines, diags, tc.want)
		}
	}
}
