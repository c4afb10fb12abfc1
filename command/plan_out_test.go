package command

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// -out never overwrites what is not a plan: the state and its companions,
// a configuration file, a -var-file, or any other file. The refused command
// changes nothing.
func TestPlanOutRefusesWhatIsNotAPlan(t *testing.T) {
	f := newFixture(t)
	f.mustRun(0, "apply", "-auto-approve")
	f.write("vars.eggovars", "")
	f.write("notes.txt", "my notes\n")
	files := []string{"eggo.state", "eggo.state.backup", "main.hcl", "vars.eggovars", "notes.txt"}
	before := map[string][]byte{}
	for _, name := range files {
		before[name], _ = os.ReadFile(filepath.Join(f.dir, name))
	}
	for _, tc := range []struct{ out, says string }{
		{"eggo.state", "state file"},
		{"eggo.state.backup", "state file"},
		{"main.hcl", "configuration file"},
		{"other.hcl", "configuration file"},
		{"vars.eggovars", "-var-file"},
		{"notes.txt", "not an eggo plan"},
	} {
		args := []string{"plan", "-out=" + filepath.Join(f.dir, tc.out)}
		if tc.out == "vars.eggovars" {
			args = append(args, "-var-file="+filepath.Join(f.dir, "vars.eggovars"))
		}
		r := f.mustRun(1, args...)
		mustContain(t, "plan -out="+tc.out, r.err, tc.says)
	}
	for _, name := range files {
		if after, _ := os.ReadFile(filepath.Join(f.dir, name)); !bytes.Equal(before[name], after) {
			t.Errorf("%s changed after the refused plans", name)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "other.hcl")); !os.IsNotExist(err) {
		t.Errorf("other.hcl was created: %v", err)
	}
}

// A plan file is created 0600, and an existing plan with a looser mode is
// replaced by a new private file, not rewritten in place.
func TestPlanOutIsPrivate(t *testing.T) {
	f := newFixture(t)
	planFile := filepath.Join(f.dir, "the.plan")
	f.mustRun(0, "plan", "-out="+planFile)
	if st, err := os.Stat(planFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new plan file: %v, %v", st, err)
	}
	if err := os.Chmod(planFile, 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustRun(0, "plan", "-out="+planFile)
	if st, err := os.Stat(planFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("re-saved plan file over a 0644 one: %v, %v", st.Mode().Perm(), err)
	}
	f.mustRun(0, "apply", planFile)
}
