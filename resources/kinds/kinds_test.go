package kinds

import "testing"

// The list is sorted by name and names each kind once.
func TestAllSortedAndUnique(t *testing.T) {
	all := All()
	if len(all) != 8 {
		t.Fatalf("%d kinds, want 8", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Name() >= all[i].Name() {
			t.Fatalf("kinds not sorted or repeated: %s before %s", all[i-1].Name(), all[i].Name())
		}
	}
}

// A plan and its apply meet the same kind instances (the host kind keeps
// where each bundle file's content is from Expand to Create).
func TestAllIsOneListPerProcess(t *testing.T) {
	a, b := All(), All()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("%s: two calls gave two instances", a[i].Name())
		}
	}
}
