package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/host"
	"github.com/eggo-project/eggo/state"
)

const benchNodes = 1000

// writeBenchConfig writes a 1000-worker definition and its master (one for_each over a
// 1000-entry map, connection over ssh) with a five-file bundle, and
// returns its directory. Nothing is contacted: plans run with NoRefresh.
func writeBenchConfig(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	bundle := map[string]string{
		"usr/bin/kubelet":                 strings.Repeat("k", 4096),
		"usr/bin/kube-proxy":              strings.Repeat("p", 2048),
		"usr/bin/etcd":                    strings.Repeat("e", 1024),
		"etc/kubernetes/kubelet.conf":     "apiVersion: v1\n",
		"etc/systemd/system/kubelet.unit": "[Unit]\n",
	}
	for rel, content := range bundle {
		p := filepath.Join(dir, "packages", "amd64", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	writeStandInBundle(b, filepath.Join(dir, "packages"))
	var nodes strings.Builder
	for i := 0; i < benchNodes; i++ {
		fmt.Fprintf(&nodes, "    n%04d = \"10.%d.%d.%d\"\n", i, 1+i/65536, (i/256)%256, i%256)
	}
	hcl := `cluster "bench" {
  kubernetes_version = "1.31.4"
  packages           = "./packages"
  network {
    pod_cidr = "172.16.0.0/14" # 1024 node subnets
  }
}

connection {
  type             = "ssh"
  user             = "root"
  private_key_file = "/nonexistent/id_ed25519"
  known_hosts_file = "/nonexistent/known_hosts"
}

locals {
  nodes = {
` + nodes.String() + `  }
}

node "master" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

node "worker" {
  for_each = local.nodes
  address  = each.value
  roles    = ["worker"]
  labels   = { rack = substr(each.key, 0, 3) }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// benchRequest plans dir's hosts only (without refreshing: benchPlan):
// the benchmarks measure the engine and the language over 1001 nodes, not
// the Kubernetes kinds' expansion.
func benchRequest(b *testing.B, dir string) Request {
	return Request{Dir: dir, StatePath: filepath.Join(b.TempDir(), "eggo.state"), Kinds: []resources.Kind{host.New()}}
}

func benchPlan(b *testing.B, req Request) *Plan {
	b.Helper()
	p, _, err := planWith(b, req)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// stateFromPlan records every planned create as done, with the computed
// attributes a real apply would have filled in.
func stateFromPlan(p *Plan) *state.State {
	st := state.New()
	st.Serial = 1
	for _, s := range p.Steps {
		attrs := make(map[string]any, len(s.After))
		for k, v := range s.After {
			if _, unknown := v.(resources.Unknown); !unknown {
				attrs[k] = v
			}
		}
		created := []any{}
		for _, f := range attrs["files"].([]any) {
			created = append(created, map[string]any{"path": f.(map[string]any)["path"], "type": "file"})
		}
		attrs["created"] = created
		attrs["replaced"] = []any{}
		attrs["facts"] = map[string]any{"arch": "amd64", "hostname": s.Node, "kernel": "6.1.0-18-amd64",
			"machine": "x86_64", "os": "debian", "os_name": "Debian GNU/Linux 12 (bookworm)", "os_version": "12"}
		st.Resources = append(st.Resources, state.Resource{Address: s.Addr, Kind: s.Kind, Node: s.Node,
			Attributes: attrs, Dependencies: s.WaitsFor})
	}
	return st
}

// reportMemory adds the bytes allocated per op and the heap in use at the
// end, in MB, beside -benchmem's figures.
func reportMemory(b *testing.B, before runtime.MemStats) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB/op-total")
	b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "MB-heap")
}

func BenchmarkPlan1000Empty(b *testing.B) {
	dir := writeBenchConfig(b)
	o := benchRequest(b, dir)
	if p := benchPlan(b, o); p.Counts() != (Counts{Add: benchNodes + 1}) {
		b.Fatalf("counts = %+v, want %d to add", p.Counts(), benchNodes+1)
	}
	planLoop(b, o)
}

func BenchmarkPlan1000NoOp(b *testing.B) {
	dir := writeBenchConfig(b)
	o := benchRequest(b, dir)
	if err := state.NewStore(o.StatePath).Write(stateFromPlan(benchPlan(b, o))); err != nil {
		b.Fatal(err)
	}
	if p := benchPlan(b, o); p.HasChanges() {
		for _, s := range p.Steps {
			if s.Action != resources.NoOp {
				b.Fatalf("%s: %s (%v)", s.Addr, s.Action, s.Reasons)
			}
		}
	}
	planLoop(b, o)
}

// BenchmarkPlan1000WithHooks is the empty-state plan of 1001 nodes with a
// node hook before and after each node's deploy and a cluster hook after
// it: 2003 hook steps placed on the graph's edges.
func BenchmarkPlan1000WithHooks(b *testing.B) {
	dir := writeBenchConfig(b)
	if err := os.WriteFile(filepath.Join(dir, "prep.sh"), []byte("true\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	hooks := `
hook "prep" {
  on     = ["pre-deploy", "post-deploy"]
  source = "prep.sh"
}
hook "announce" {
  on     = "post-deploy"
  scope  = "cluster"
  source = "prep.sh"
}
`
	if err := os.WriteFile(filepath.Join(dir, "hooks.hcl"), []byte(hooks), 0o644); err != nil {
		b.Fatal(err)
	}
	o := benchRequest(b, dir)
	if n := len(hookSteps(benchPlan(b, o))); n != 2*(benchNodes+1)+1 {
		b.Fatalf("%d hook steps, want %d", n, 2*(benchNodes+1)+1)
	}
	planLoop(b, o)
}

// planLoop times b.N plans of o, with their allocations and memory.
func planLoop(b *testing.B, o Request) {
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchPlan(b, o)
	}
	b.StopTimer()
	reportMemory(b, before)
}
