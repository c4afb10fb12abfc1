package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report as e2e.test writes it (ginkgo v2, the failure message attribute
// omitted): a pass, a failure, a skip with a reason, a spec the focus left
// out, and a spec not in the conformance list.
const parallelReport = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" disabled="0" errors="0" failures="1" time="12.5">
  <testsuite name="Kubernetes e2e suite" package="/" tests="5" disabled="0" skipped="2" errors="0" failures="1" time="12.5">
    <testcase name="[It] [sig-network] DNS should provide DNS for the cluster [Conformance]" classname="Kubernetes e2e suite" status="passed" time="5.1"></testcase>
    <testcase name="[It] [sig-node] Pods should be updated [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" status="failed" time="3">
      <failure message="" type="failed">[FAILED] timed out waiting for the condition
In [It] at: pods.go:123</failure>
    </testcase>
    <testcase name="[It] [sig-apps] Daemon set [Serial] should rollback without unnecessary restarts [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0">
      <skipped message="skipped"></skipped>
    </testcase>
    <testcase name="[It] [sig-storage] Projected should be consumable [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0">
      <skipped message="skipped - Only supported for providers [gce] (not skeleton)"></skipped>
    </testcase>
    <testcase name="[It] [sig-cli] Kubectl client not conformance" classname="Kubernetes e2e suite" status="passed" time="1"></testcase>
  </testsuite>
</testsuites>`

const serialReport = `<testsuites><testsuite name="Kubernetes e2e suite">
    <testcase name="[It] [sig-apps] Daemon set [Serial] should rollback without unnecessary restarts [Conformance]" status="passed"></testcase>
    <testcase name="[It] [sig-network] DNS should provide DNS for the cluster [Conformance]" status="skipped"><skipped message="skipped"></skipped></testcase>
    <testcase name="[It] [sig-cli] Kubectl logs should be able to retrieve logs [Conformance]" status="skipped"><skipped message="skipped"></skipped></testcase>
</testsuite></testsuites>`

func TestSummarizeAcrossPhases(t *testing.T) {
	list := []string{
		"[sig-network] DNS should provide DNS for the cluster [Conformance]",
		"[sig-node] Pods should be updated [NodeConformance] [Conformance]",
		"[sig-apps] Daemon set [Serial] should rollback without unnecessary restarts [Conformance]",
		"[sig-storage] Projected should be consumable [Conformance]",
		"[sig-auth] ServiceAccounts should mount a token [Conformance]",
		"[sig-cli] Kubectl logs should be able to retrieve logs [Conformance]", // the focus left it out
	}
	var reports [][]Result
	for _, r := range []string{parallelReport, serialReport} {
		rs, err := ReadJUnit(strings.NewReader(r))
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, rs)
	}
	s := Summarize(list, reports)
	want := []Outcome{Passed, Failed, Passed, Skipped, NotRun, NotRun}
	for i, r := range s.Results {
		if r.Outcome != want[i] {
			t.Errorf("%s: %s (%q), want %s", r.Name, r.Outcome, r.Reason, want[i])
		}
	}
	if r := s.Results[1]; r.Reason != "[FAILED] timed out waiting for the condition" {
		t.Errorf("failure reason %q: want the first line of the failure", r.Reason)
	}
	if r := s.Results[3]; !strings.Contains(r.Reason, "Only supported for providers") {
		t.Errorf("skip reason %q", r.Reason)
	}
	var out bytes.Buffer
	s.Print(&out)
	first := strings.SplitN(out.String(), "\n", 2)[0]
	if first != "2 passed, 1 failed, 1 skipped of 6 (2 not run)" {
		t.Errorf("summary line %q", first)
	}
	for _, w := range []string{"FAILED: [sig-node] Pods should be updated", "SKIPPED: [sig-storage] Projected"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the summary lacks %q:\n%s", w, out.String())
		}
	}
}

func TestReadJUnitRefusesGarbage(t *testing.T) {
	if _, err := ReadJUnit(strings.NewReader("<testsuites><testsuite>")); err == nil {
		t.Error("a truncated report read without error")
	}
}

// Every phase runs conformance tests only: a focus narrows them.
func TestPhasesRunConformanceTestsOnly(t *testing.T) {
	ps := Options{Focus: `\[sig-network\] DNS`, Serial: true, Procs: 4}.phases()
	if len(ps) != 2 || ps[0].procs != 4 || ps[1].procs != 1 {
		t.Fatalf("phases %+v: want a parallel one on 4 processes, then a serial one", ps)
	}
	for _, p := range ps {
		args := strings.Join(p.args(), " ")
		if !strings.Contains(args, "--label-filter=Conformance") {
			t.Errorf("phase %s runs beyond the conformance tests: %s", p.name, args)
		}
	}
	if a := strings.Join(ps[0].args(), " "); !strings.Contains(a, `--focus=\[sig-network\] DNS`) || !strings.Contains(a, `--skip=\[Serial\]`) {
		t.Errorf("parallel phase: %s", a)
	}
}

// A run starts from an empty results directory as far as its own files
// go: the last run's state and reports are gone, the operator's files
// stay.
func TestClearResults(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"eggo.state", "eggo.state.backup", "apply.log", "e2e-parallel.log", "reports/parallel/junit_01.xml", "summary.txt", "tmp-123/test-kuberc1/kuberc.yaml", "notes.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := clearResults(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "notes.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left after clearing: %v, want only the operator's notes.txt", names)
	}
}
