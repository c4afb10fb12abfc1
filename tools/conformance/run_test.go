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

// TestFlakeAttemptsOnlyWhenAsked: the smoke's parallel phase lets ginkgo run
// a failed test again, make conformance's never; the summary counts the
// tests ginkgo's log heads FLAKEY and says so.
func TestFlakeAttemptsOnlyWhenAsked(t *testing.T) {
	if a := strings.Join(Options{FlakeAttempts: 2}.phases()[0].args(), " "); !strings.Contains(a, "--flake-attempts=2") {
		t.Errorf("smoke's parallel phase: %s", a)
	}
	for _, p := range (Options{Serial: true}).phases() {
		if a := strings.Join(p.args(), " "); strings.Contains(a, "flake") {
			t.Errorf("make conformance's %s phase retries: %s", p.name, a)
		}
	}
	dir := t.TempDir()
	log := "• [FLAKEY TEST - TOOK 2 ATTEMPTS TO PASS] [61.2 seconds]\n[sig-api-machinery] Aggregator ...\n• [3.1 seconds]\n"
	if err := os.WriteFile(filepath.Join(dir, "e2e-parallel.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := countFlaked(dir)
	if err != nil || n != 1 {
		t.Fatalf("countFlaked: %d, %v; want 1", n, err)
	}
	var b strings.Builder
	Summary{Results: []Result{{Name: "a", Outcome: Passed}}, Flaked: n}.Print(&b)
	if !strings.HasPrefix(b.String(), "1 passed (1 only on a second attempt") {
		t.Errorf("summary: %q", b.String())
	}
}
