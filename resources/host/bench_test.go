package host

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// planScale builds a 1000-node cluster with a 20-file bundle, and the
// state (through JSON, as the engine would read it) of an apply of it.
func planScale(tb testing.TB) (*Host, *resources.Cluster, map[string]*resources.Object) {
	tb.Helper()
	packages := tb.TempDir()
	for i := 0; i < 20; i++ {
		resourcestest.WriteFile(tb, filepath.Join(packages, "amd64", fmt.Sprintf("usr/local/bin/tool-%02d", i)), fmt.Sprintf("binary %d", i), 0o755)
	}
	c := &resources.Cluster{Name: "big", Packages: packages}
	for i := 0; i < 1000; i++ {
		c.Nodes = append(c.Nodes, resources.Node{
			Name: fmt.Sprintf("n%04d", i), Address: fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256),
			Roles: []string{"worker"}, Labels: map[string]string{"zone": "a"},
			Connection: resources.Connection{User: "root", PrivateKeyFile: "/root/.ssh/id_ed25519", Timeout: 10 * time.Second},
		})
	}
	h := New()
	ds, err := h.Expand(c)
	if err != nil {
		tb.Fatal(err)
	}
	prior := make(map[string]*resources.Object, len(ds))
	for _, d := range ds {
		a := plannedAttrs(d.Attrs, nil, true)
		a[hostFacts] = map[string]any{"os": "debian", "os_version": "12", "arch": "amd64", "kernel": "6.1.0", "hostname": d.Node}
		a[hostCreated] = []any{map[string]any{"path": "/usr/local/bin/tool-00", "type": "file"}}
		a[hostReplaced] = []any{}
		prior[d.Addr] = &resources.Object{Addr: d.Addr, Kind: "host", Node: d.Node, Attrs: resourcestest.ViaState(tb, a)}
	}
	return h, c, prior
}

// planAll is what the engine does for the host kind in a plan without
// refresh: expand, then one Plan per node.
func planAll(tb testing.TB, h *Host, c *resources.Cluster, prior map[string]*resources.Object) {
	ds, err := h.Expand(c)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range ds {
		ch, err := h.Plan(context.Background(), nil, prior[d.Addr], d)
		if err != nil || ch.Action != resources.NoOp {
			tb.Fatalf("%s: %s %+v %v", d.Addr, ch.Action, ch.Reasons, err)
		}
	}
}

func BenchmarkHostExpandPlan1000(b *testing.B) {
	h, c, prior := planScale(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		planAll(b, h, c, prior)
	}
}

// The scaling guard of BenchmarkHostExpandPlan1000 in ordinary test runs,
// by counting instead of timing (a shared machine's clock proves nothing):
// the bundle is read once per expansion, never once per host.
func TestHostPlan1000NodesReadsTheBundleOncePerExpansion(t *testing.T) {
	h, c, prior := planScale(t)
	planAll(t, h, c, prior)
	if got := h.hashed.Load(); got != 40 {
		t.Errorf("hashed %d files in two expansions of a 20-file bundle, want 40", got)
	}
}

// BenchmarkHostReadNoop is the refresh of a host whose 64 MB bundle is as
// recorded, over the local transport: with the quick check (stats
// recorded) and as an older record without stats (every file hashed).
func BenchmarkHostReadNoop(b *testing.B) {
	packages, root := b.TempDir(), b.TempDir()
	chunk := make([]byte, 16<<20)
	for i := 0; i < 4; i++ {
		for j := range chunk {
			chunk[j] = byte(i + j)
		}
		resourcestest.WriteFile(b, filepath.Join(packages, "amd64", root, fmt.Sprintf("usr/local/bin/tool-%d", i)), string(chunk), 0o755)
	}
	h := New()
	h.backupDir, h.root = filepath.Join(root, "var/lib/eggo/backup"), root
	c := &resources.Cluster{Name: "bench", Packages: packages, Nodes: []resources.Node{{Name: "m0", Address: "127.0.0.1", Roles: []string{"worker"}, Connection: resources.Connection{Type: "local"}}}}
	ds, err := h.Expand(c)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	attrs, err := h.Create(ctx, rc, ds[0], resources.Change{})
	if err != nil {
		b.Fatal(err)
	}
	attrs = resourcestest.ViaState(b, attrs)
	old := resources.Attrs{}
	for k, v := range attrs {
		if k != hostFileStats {
			old[k] = v
		}
	}
	for _, bc := range []struct {
		name  string
		attrs resources.Attrs
	}{{"stat", attrs}, {"sha256", old}} {
		b.Run(bc.name, func(b *testing.B) {
			hashed := h.probeHashed.Load()
			for b.Loop() {
				_, drift, err := h.Read(ctx, rc, resources.Object{Addr: "host.m0", Kind: "host", Node: "m0", Attrs: bc.attrs})
				if err != nil || len(drift) != 0 {
					b.Fatalf("read: %v %v", drift, err)
				}
			}
			b.ReportMetric(float64(h.probeHashed.Load()-hashed)/float64(b.N), "files-hashed/op")
		})
	}
}
