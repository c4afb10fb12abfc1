package certs

import (
	"context"
	"fmt"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// BenchmarkCertExpand1000 is one plan of the certificates of a cluster of
// 3 masters and 1000 workers, all applied: expand, then a no-op Plan of
// every certificate against its recorded state (Refs resolved as the
// engine resolves them).
func BenchmarkCertExpand1000(b *testing.B) {
	w := newPKIWorld(b)
	c := pkiCluster()
	c.Nodes = c.Nodes[:3]
	c.Nodes[2].Roles = []string{"master", "etcd"}
	for i := 0; i < 1000; i++ {
		c.Nodes = append(c.Nodes, resources.Node{Name: fmt.Sprintf("w%04d", i), Address: fmt.Sprintf("10.78.%d.%d", i/250, i%250+1), Roles: []string{"worker"}})
	}
	w.apply(c)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ds, err := w.cert.Expand(c)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			d.Attrs = resources.Substitute(d.Attrs, func(r resources.Ref) any { return w.state[r.Addr].Attrs[r.Attr] }).(resources.Attrs)
			ch, err := w.cert.Plan(ctx, w.rc, w.state[d.Addr], d)
			if err != nil {
				b.Fatal(err)
			}
			if ch.Action != resources.NoOp {
				b.Fatalf("%s: %s %v", d.Addr, ch.Action, ch.Reasons)
			}
		}
	}
	b.ReportMetric(float64(len(w.state)), "resources")
}
