package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write replaces a file whole with the mode asked for, even over a file
// with a looser one, and leaves no temporary file behind.
func TestWriteReplacesWithItsOwnMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan")
	if err := os.WriteFile(p, []byte("old, world-readable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v, want \"new\" 0600", data, st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d entries in the directory, want 1", len(entries))
	}
	if err := Write(filepath.Join(dir, "no-such-dir", "f"), nil, 0o600); err == nil {
		t.Error("writing into a missing directory did not fail")
	}
}
