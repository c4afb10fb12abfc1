package jobrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreAccessStaysInTheRunDirectory: the state names where the
// admin kubeconfig goes; a path outside the run's directory is refused
// before anything is written (the Secret lookup is not reached: no API).
func TestRestoreAccessStaysInTheRunDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"../escape.kubeconfig", "/etc/escape.kubeconfig"} {
		show := []byte(`{"resources":[{"address":"kubeconfig.admin","attributes":{"path":"` + path + `","sha256":"00","ca":"x"}}]}`)
		rec, err := adminRecordOf(filepath.Join(dir, "run"), show)
		if err != nil || rec == nil {
			t.Fatalf("%s: %v", path, err)
		}
		err = writeRestored(filepath.Join(dir, "run"), rec, []byte("kubeconfig"))
		if err == nil || !strings.Contains(err.Error(), "outside the run's directory") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escape.kubeconfig")); err == nil {
		t.Fatal("written outside the run's directory")
	}
}
