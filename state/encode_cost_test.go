package state

import "testing"

// TestEncodeCostPerResource guards the writer's shape by counting, which a
// loaded machine does not change. A write serializes each value once
// into the last write's buffer (or one sized from it), shares values by their bytes
// there, and copies the buffer into an output allocated once: its
// allocations do not grow with the state (85 for a 1,000-node cluster's
// 7,000 resources; 58,000 when every map's keys took a slice and every
// shared value was written twice), and the bytes it allocates are mostly
// the file and, when the pool holds none from the last write, the buffer
// of the resources with their shared values in place (1.6 times the
// file's size in all, measured, 3.3 without the pool).
func TestEncodeCostPerResource(t *testing.T) {
	cost := func(nodes int) (allocs, bytes, file float64) {
		s := clusterState(nodes)
		n := float64(len(s.Resources))
		size := len(Encode(s))
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				Encode(s)
			}
		})
		return float64(res.AllocsPerOp()) / n, float64(res.AllocedBytesPerOp()) / n, float64(size) / n
	}
	smallA, smallB, _ := cost(30)
	allocs, bytes, file := cost(500)
	t.Logf("per resource: %.3f allocations (%.3f at 30 nodes), %.0f bytes (%.0f at 30 nodes) for %.0f bytes of file", allocs, smallA, bytes, smallB, file)
	if allocs > 0.05 {
		t.Errorf("%.3f allocations per resource encoded at 500 nodes: want at most 0.05 (a map's keys or a shared value allocating again?)", allocs)
	}
	// Not compared with the count at 30 nodes: whether the pool still
	// holds the last buffer depends on when the GC ran (1 to 3.3 times
	// the file); 5.3 before a value was written once.
	if bytes > 4*file {
		t.Errorf("%.0f bytes allocated per resource encoded at 500 nodes (%.0f at 30) for %.0f of file: want at most four times the file", bytes, smallB, file)
	}
}
