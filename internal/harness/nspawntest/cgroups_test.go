package nspawntest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The kubelets' cgroup roots left in a hierarchy are found by their name
// and removed, deepest first; what is not eggo's stays.
func TestLeftCgroupRootsRemoved(t *testing.T) {
	fs := t.TempDir()
	for _, d := range []string{"memory/eggo-abc/kubepods/besteffort/pod1", "pids/eggo-abc/kubepods", "pids/eggo-def", "pids/system.slice"} {
		if err := os.MkdirAll(filepath.Join(fs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ids := leftCgroupRoots(fs)
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"abc", "def"}) {
		t.Fatalf("left roots: %v, want abc and def", ids)
	}
	removeCgroupRoots(fs, []string{"abc"})
	for d, want := range map[string]bool{"memory/eggo-abc": false, "pids/eggo-abc": false, "pids/eggo-def": true, "pids/system.slice": true} {
		if _, err := os.Stat(filepath.Join(fs, d)); (err == nil) != want {
			t.Errorf("%s there after removing abc's roots: %t, want %t", d, err == nil, want)
		}
	}
}
