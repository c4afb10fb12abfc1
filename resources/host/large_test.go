package host

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostLargeBundle installs a bundle whose probe script is far larger
// than Linux's 128 KiB limit on one argument: scripts go on stdin.
//
// It takes most of the package's time (1200 files through a real apply,
// refresh and delete), so -short leaves it out; the full run keeps it.
func TestHostLargeBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 1200 files through create, refresh and delete take over a minute")
	}
	f := newHostFixture(t)
	long := strings.Repeat("d", 90)
	for i := 0; i < 1200; i++ {
		f.bundle("amd64", fmt.Sprintf("opt/%s/%04d-%s.conf", long, i, long), fmt.Sprint(i), 0o644)
	}
	before := f.snapshot()
	d := f.desired(f.cluster("local", "m0"))
	r := newHostRun(t)
	if _, attrs, err := f.apply(r, nil, d); err != nil {
		t.Fatalf("create: %v", err)
	} else {
		live, drift := f.refresh(newHostRun(t), attrs)
		if len(drift) != 0 || live == nil {
			t.Fatalf("refresh after create: drift %v", drift)
		}
		if _, err := f.delete(newHostRun(t), attrs); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}
	if after := f.snapshot(); after != before {
		t.Fatal("host not as before after delete")
	}
}
