package conformance

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
	if !strings.HasPrefix(b.String(), "1 passed (1 only on a later attempt") {
		t.Errorf("summary: %q", b.String())
	}
}

// The serial phase runs every [Serial] spec of each release's list, and the
// parallel phase none: v1.37 names them "… [Conformance] [Serial]", v1.36
// "[Serial] … [Conformance]" (a v1.37 run once ran no serial spec at all).
func TestSerialPhaseSelectsEverySerialSpec(t *testing.T) {
	lists, _ := filepath.Glob("../bundle/conformance/v*/conformance-tests.txt")
	if len(lists) == 0 {
		t.Fatal("no conformance-tests.txt found")
	}
	phases := (Options{Serial: true}).phases()
	focus := regexp.MustCompile(phases[1].focus)
	skip := regexp.MustCompile(phases[0].skip)
	for _, l := range lists {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			serial := strings.Contains(spec, "[Serial]")
			if focus.MatchString(spec) != serial || skip.MatchString(spec) != serial {
				t.Errorf("%s: %q: serial %v, but the serial phase's focus matches %v and the parallel phase's skip %v",
					l, spec, serial, focus.MatchString(spec), skip.MatchString(spec))
			}
		}
	}
}
