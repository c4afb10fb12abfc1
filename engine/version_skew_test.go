package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan reads the Kubernetes version the cluster runs from the state
// before it expands: one minor up is planned, two are refused at
// kubernetes_version's line with the minor to go through, and a destroy
// is not held up by the version the configuration asks for.
func TestPlanMovesOneMinorAtATime(t *testing.T) {
	dir := t.TempDir()
	o := Request{Dir: dir, StatePath: filepath.Join(dir, "eggo.state")}
	writeWorkers(t, dir, "10.244.0.0/16", "w0")
	recordKinds(t, o.StatePath, planSteps(t, o), nil, "service", "k8s_node")

	setVersion := func(v string) {
		t.Helper()
		p := filepath.Join(dir, "main.hcl")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), `"1.31.4"`, `"`+v+`"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setVersion("1.33.0")
	_, _, err := planWith(t, o)
	if err == nil || !strings.Contains(err.Error(), "main.hcl:2") || !strings.Contains(err.Error(), "the cluster runs 1.31.4") ||
		!strings.Contains(err.Error(), "Apply the newest 1.32 release first, then 1.33.0") {
		t.Errorf("a plan from 1.31.4 to 1.33.0: %v, want it refused at main.hcl:2 with 1.32 as the way", err)
	}
	o.Destroy = true
	if _, _, err := planWith(t, o); err != nil {
		t.Errorf("destroy with kubernetes_version two minors up: %v", err)
	}
	o.Destroy = false
	writeWorkers(t, dir, "10.244.0.0/16", "w0")
	setVersion("1.32.0")
	if _, _, err := planWith(t, o); err != nil {
		t.Errorf("a plan from 1.31.4 to 1.32.0: %v", err)
	}
}
