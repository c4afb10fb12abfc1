package engine

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/eggo-project/eggo/resources"
)

// manyKind expands to n resources, made once.
type manyKind struct {
	*testKind
	ds []resources.Desired
}

func (k manyKind) Expand(*resources.Cluster) ([]resources.Desired, error) { return k.ds, nil }

// TestExpandCopiesEachResourceOnce: gathering the kinds' resources costs
// one list of the right size and the index of their addresses, the same
// bytes per resource for 1,000 resources as for 10,000: the list grown a
// resource at a time cost 741 bytes a resource at 1,000, 996 at 10,000.
func TestExpandCopiesEachResourceOnce(t *testing.T) {
	r := newRig(t)
	perResource := func(n int) float64 {
		var kinds []resources.Kind
		for part := range 4 {
			k := manyKind{testKind: r.kind}
			for i := range n / 4 {
				k.ds = append(k.ds, desired(fmt.Sprintf("test.k%d-%05d", part, i), nil))
			}
			kinds = append(kinds, k)
		}
		c := &resources.Cluster{}
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if ds, err := expand(kinds, c); err != nil || len(ds) != n {
					b.Fatalf("%d resources, %v", len(ds), err)
				}
			}
		})
		return float64(res.AllocedBytesPerOp()) / float64(n)
	}
	size := float64(unsafe.Sizeof(resources.Desired{}))
	small, large := perResource(1000), perResource(10000)
	t.Logf("bytes per resource gathered: %.0f at 1,000, %.0f at 10,000 (a Desired is %.0f)", small, large, size)
	// The list's share is one Desired; the address index's about 100 bytes.
	if large > size+160 || large > 1.2*small {
		t.Errorf("%.0f bytes per resource gathered at 10,000 (%.0f at 1,000): want at most one Desired (%.0f) and 160 more", large, small, size)
	}
}
