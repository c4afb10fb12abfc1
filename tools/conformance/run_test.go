package conformance

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGinkgoRunsInATemporaryDirOfItsOwn: e2e.test's processes get a TMPDIR
// of the run's, gone when the phase ends (they leave a test-kuberc*
// directory each). ginkgo here is a unit-test double: a script that leaves
// a file in its TMPDIR and says where that was.
func TestGinkgoRunsInATemporaryDirOfItsOwn(t *testing.T) {
	tools, results := t.TempDir(), t.TempDir()
	ginkgo := "#!/bin/sh\nmkdir \"$TMPDIR/test-kuberc1\" && echo \"tmp=$TMPDIR\"\n"
	if err := os.WriteFile(filepath.Join(tools, "ginkgo"), []byte(ginkgo), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Tools: tools, Results: results, Log: io.Discard}
	if err := o.ginkgo(context.Background(), phase{name: "parallel", focus: "x", procs: 1}, "kubeconfig"); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(results, "e2e-parallel.log"))
	if err != nil {
		t.Fatal(err)
	}
	tmp, ok := strings.CutPrefix(strings.TrimSpace(string(log)), "tmp=")
	if !ok || !strings.HasPrefix(tmp, results+string(filepath.Separator)) {
		t.Fatalf("ginkgo's TMPDIR: %q, want one under the results %s", log, results)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the phase (%v)", tmp, err)
	}
}
