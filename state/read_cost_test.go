package state

import "testing"

// TestDecodeCostPerResource guards the reader's shape by counting, which
// a loaded machine does not change: decoding costs the same allocations
// and bytes per resource for 100 resources and for 3,000 (a cost growing
// with the state would show), and a field name, a unit name or a node's
// address that repeats in every resource is allocated once (interned), so
// the state a plan holds for its whole run is not thousands of copies of
// the same words.
func TestDecodeCostPerResource(t *testing.T) {
	cost := func(n int) (allocs, bytes float64) {
		data := Encode(bigState(n))
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Decode(data, "t.state"); err != nil {
					b.Fatal(err)
				}
			}
		})
		return float64(res.AllocsPerOp()) / float64(n), float64(res.AllocedBytesPerOp()) / float64(n)
	}
	smallA, smallB := cost(100)
	allocs, bytes := cost(3000)
	t.Logf("per resource: %.1f allocations (%.1f at 100), %.0f bytes (%.0f at 100)", allocs, smallA, bytes, smallB)
	// 27 today: the unique strings (address, node, digest, a dependency),
	// the maps and lists and their growth; 46 before interning.
	if allocs > 30 || allocs > 1.1*smallA {
		t.Errorf("%.1f allocations per resource decoded (%.1f at 100 resources): want at most 30, flat", allocs, smallA)
	}
	if bytes > 1.2*smallB {
		t.Errorf("%.0f bytes allocated per resource decoded at 3000 resources, %.0f at 100: more than linear", bytes, smallB)
	}
}
