package engine

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// schemaCounter is the test kind, counting the engine's Schema calls.
type schemaCounter struct {
	*testKind
	calls atomic.Int64
}

func (k *schemaCounter) Schema() resources.Schema {
	k.calls.Add(1)
	return k.testKind.Schema()
}

// refPlan is n resources each referring to test.ca's secret (a leaf
// certificate and its CA), with a list and a map beside the reference.
func refPlan(n int) []resources.Desired {
	ds := []resources.Desired{desired("test.ca", resources.Attrs{"secret": "key"})}
	for i := range n {
		ds = append(ds, desired(fmt.Sprintf("test.n%04d", i), resources.Attrs{
			"value":  map[string]any{"ca": resources.Ref{Addr: "test.ca", Attr: "secret"}, "name": fmt.Sprint(i)},
			"files":  []any{map[string]any{"path": "/etc/a", "content": "x"}, map[string]any{"path": "/etc/b", "content": "y"}},
			"labels": map[string]any{"rack": "r1", "zone": "z1"},
		}))
	}
	return ds
}

// TestPlanCostPerResourceIsFlat: what a plan asks of each resource's kind
// does not grow with the plan. A kind builds its schema anew on each
// Schema call, which the engine made for every step and every reference;
// it now asks each kind once per plan. And the bytes a plan allocates per
// resource are the same for 100 resources as for 1000.
func TestPlanCostPerResourceIsFlat(t *testing.T) {
	r := newRig(t)
	k := &schemaCounter{testKind: r.kind}
	o := r.opts()
	o.Kinds = []resources.Kind{k}
	cost := func(n int) (calls int64, bytes float64) {
		ds := refPlan(n)
		k.calls.Store(0)
		r.plan(o, ds...)
		calls = k.calls.Load()
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				r.plan(o, ds...)
			}
		})
		return calls, float64(res.AllocedBytesPerOp()) / float64(n)
	}
	smallCalls, smallBytes := cost(100)
	calls, bytes := cost(1000)
	t.Logf("Schema calls: %d for 100 resources, %d for 1000; bytes per resource: %.0f, %.0f", smallCalls, calls, smallBytes, bytes)
	if calls > 1 || calls != smallCalls {
		t.Errorf("the plan asked the kind's schema %d times for 1000 resources, %d for 100: want once", calls, smallCalls)
	}
	if bytes > 1.25*smallBytes {
		t.Errorf("%.0f bytes allocated per resource planned at 1000 resources, %.0f at 100: more than linear", bytes, smallBytes)
	}
}
