package engine

import (
	"slices"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestPlanWalksEachResourceForRefsOnce: a plan finds each desired
// resource's references by one walk of its attributes, which the graph
// and the resolution of its step share; both walked every attribute of
// every resource before.
func TestPlanWalksEachResourceForRefsOnce(t *testing.T) {
	r := newRig(t)
	for _, n := range []int{100, 1000} {
		ds := refPlan(n)
		before := refWalks.Load()
		r.plan(r.opts(), ds...)
		if walks := refWalks.Load() - before; walks != int64(len(ds)) {
			t.Errorf("%d walks for references in a plan of %d resources: want one each", walks, len(ds))
		}
	}
}

// TestRefsByAddrCostPerResource: the map of a plan's references is made
// at its size, not regrown by doubling as it fills (each growth copies
// all before it): 379 bytes a resource at 1,000 grown, 227 sized; 294
// since the walk runs on every core (its results gather in a slice first).
func TestRefsByAddrCostPerResource(t *testing.T) {
	ds := refPlan(1000)
	want := make(map[string]*resources.Desired, len(ds))
	for i := range ds {
		want[ds[i].Addr] = &ds[i]
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			refsByAddr(want)
		}
	})
	perResource := float64(res.AllocedBytesPerOp()) / float64(len(ds))
	t.Logf("%.0f bytes per resource", perResource)
	if perResource > 320 {
		t.Errorf("%.0f bytes allocated per resource to find the references of 1,000: want at most 320", perResource)
	}
}

// TestRefsOfIsRefsOrder: the addresses a resource refers to come once
// each, in resources.Refs's order, and the attributes holding them sorted.
func TestRefsOfIsRefsOrder(t *testing.T) {
	d := &resources.Desired{Addr: "test.x", Attrs: resources.Attrs{
		"z":     resources.Ref{Addr: "test.a", Attr: "v"},
		"b":     []any{resources.Ref{Addr: "test.c", Attr: "v"}, map[string]any{"k": resources.Ref{Addr: "test.a", Attr: "w"}}},
		"plain": "x",
		"m":     map[string]any{"y": resources.Ref{Addr: "test.b", Attr: "v"}, "x": resources.Ref{Addr: "test.c", Attr: "w"}},
	}}
	var want []string
	for _, ref := range resources.Refs(d.Attrs) {
		if !slices.Contains(want, ref.Addr) {
			want = append(want, ref.Addr)
		}
	}
	r := refsOf(d)
	if !slices.Equal(r.addrs, want) || !slices.Equal(r.attrs, []string{"b", "m", "z"}) {
		t.Errorf("refsOf = %v, %v; want %v, [b m z]", r.addrs, r.attrs, want)
	}
	if r := refsOf(&resources.Desired{Attrs: resources.Attrs{"a": "x"}}); r.attrs != nil || r.addrs != nil {
		t.Errorf("refsOf without references = %+v", r)
	}
}
