package command

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/state"
)

func TestLocalLifecycle(t *testing.T) {
	f := newFixture(t)
	before := f.rootFiles()

	r := f.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply", r.out, "Apply complete! Resources: 1 added, 0 changed, 0 destroyed.")
	want := []string{"opt/", "opt/app/", "opt/app/bin/", "opt/app/bin/run", "opt/app/hello.txt"}
	if got := f.rootFiles(); !reflect.DeepEqual(got, want) {
		t.Fatalf("files on the host = %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "opt/app/hello.txt")); string(b) != "hello\n" {
		t.Fatalf("hello.txt = %q", b)
	}
	if st, _ := os.Stat(filepath.Join(f.root, "opt/app/bin/run")); st.Mode().Perm() != 0o755 {
		t.Fatalf("run has mode %v, want 0755", st.Mode().Perm())
	}

	stateBefore, err := os.ReadFile(f.statePath())
	if err != nil {
		t.Fatal(err)
	}
	r = f.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "second apply", r.out, "No changes.")
	if strings.Contains(r.out, "Apply complete") {
		t.Fatalf("second apply applied something:\n%s", r.out)
	}
	stateAfter, _ := os.ReadFile(f.statePath())
	if !bytes.Equal(stateBefore, stateAfter) {
		t.Fatal("a no-op apply rewrote the state file")
	}

	if err := os.WriteFile(filepath.Join(f.root, "opt/app/hello.txt"), []byte("edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = f.mustRun(2, "plan", "-detailed-exitcode")
	mustContain(t, "plan after drift", r.out, `~ host.n1 {`, "changed outside eggo", "hello.txt (modified)",
		"Plan: 0 to add, 1 to change, 0 to destroy.")

	r = f.mustRun(0, "destroy", "-auto-approve")
	mustContain(t, "destroy", r.out, "Destroy complete! Resources: 0 added, 0 changed, 1 destroyed.")
	if got := f.rootFiles(); !reflect.DeepEqual(got, before) {
		t.Fatalf("after destroy the root holds %v, want %v", got, before)
	}
	r = f.mustRun(0, "state", "list")
	if r.out != "" {
		t.Fatalf("state list after destroy = %q, want nothing", r.out)
	}
}

func TestSavedPlan(t *testing.T) {
	t.Run("applies exactly it", func(t *testing.T) {
		f := newFixture(t)
		planFile := filepath.Join(f.dir, "tfplan")
		r := f.mustRun(0, "plan", "-out="+planFile)
		mustContain(t, "plan -out", r.out, "Saved the plan to "+planFile)
		if len(f.rootFiles()) != 0 {
			t.Fatal("plan -out changed the host")
		}
		// No approval is asked for a saved plan, even without a terminal.
		r = f.mustRun(0, "apply", planFile)
		mustContain(t, "apply FILE", r.out, "Apply complete! Resources: 1 added")
		if len(f.rootFiles()) == 0 {
			t.Fatal("apply FILE did not install the bundle")
		}
	})
	t.Run("refused after the state moved", func(t *testing.T) {
		f := newFixture(t)
		planFile := filepath.Join(f.dir, "tfplan")
		f.mustRun(0, "plan", "-out="+planFile)
		f.mustRun(0, "apply", "-auto-approve")
		stateBefore, _ := os.ReadFile(f.statePath())
		r := f.mustRun(1, "apply", planFile)
		mustContain(t, "stderr", r.err, "the state changed since this plan was made", "make a new plan")
		if stateAfter, _ := os.ReadFile(f.statePath()); !bytes.Equal(stateBefore, stateAfter) {
			t.Fatal("a refused saved plan changed the state")
		}
	})
	t.Run("refused after the configuration changed", func(t *testing.T) {
		f := newFixture(t)
		planFile := filepath.Join(f.dir, "tfplan")
		f.mustRun(0, "plan", "-out="+planFile)
		f.writeConfig("  labels = { zone = \"b\" }\n")
		r := f.mustRun(1, "apply", planFile)
		mustContain(t, "stderr", r.err, "configuration changed")
		if len(f.rootFiles()) != 0 {
			t.Fatal("a refused saved plan changed the host")
		}
	})
	t.Run("refuses plan flags", func(t *testing.T) {
		f := newFixture(t)
		planFile := filepath.Join(f.dir, "tfplan")
		f.mustRun(0, "plan", "-out="+planFile)
		r := f.mustRun(1, "apply", "-refresh=false", planFile)
		mustContain(t, "stderr", r.err, "belong to `eggo plan`")
	})
}

func TestJSONLines(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		types []string // must all appear
	}{
		{"plan", []string{"plan", "-json"}, []string{"planned_change", "change_summary"}},
		{"apply", []string{"apply", "-json", "-auto-approve"}, []string{"planned_change", "apply_start", "apply_complete", "apply_summary"}},
		{"validate", []string{"validate", "-json"}, []string{"valid"}},
		{"error", []string{"plan", "-json", "-parallelism=0"}, []string{"diagnostic"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.run(tc.args...)
			assertNoSecret(t, r)
			seen := map[string]bool{}
			for i, line := range strings.Split(strings.TrimSuffix(r.out, "\n"), "\n") {
				var msg map[string]any
				if err := json.Unmarshal([]byte(line), &msg); err != nil {
					t.Fatalf("line %d is not JSON (%v): %q", i+1, err, line)
				}
				typ, ok := msg["type"].(string)
				if !ok || typ == "" {
					t.Fatalf("line %d has no type: %q", i+1, line)
				}
				seen[typ] = true
			}
			for _, typ := range tc.types {
				if !seen[typ] {
					t.Errorf("no %q line in:\n%s", typ, r.out)
				}
			}
		})
	}
}

func TestStateCommands(t *testing.T) {
	f := newFixture(t)
	r := f.mustRun(1, "state", "list")
	mustContain(t, "state list without state", r.err, "no state at eggo.state")

	f.writeConfig("")
	// n2 is the same machine: it waits for n1, then finds its files in place.
	f.write("more.hcl", "node \"n2\" {\n  address    = \"127.0.0.2\"\n  roles      = [\"worker\"]\n  depends_on = [node.n1]\n}\n")
	f.mustRun(0, "apply", "-auto-approve")

	r = f.mustRun(0, "state", "list")
	if r.out != "host.n1\nhost.n2\n" {
		t.Fatalf("state list = %q", r.out)
	}
	r = f.mustRun(0, "state", "list", "host.n2")
	if r.out != "host.n2\n" {
		t.Fatalf("state list host.n2 = %q", r.out)
	}

	r = f.mustRun(0, "state", "show", "host.n1")
	mustContain(t, "state show", r.out, "# host.n1", "\nhost.n1 {", `address`, `"127.0.0.1"`, "hello.txt")
	r = f.mustRun(0, "state", "show", "-json", "host.n1")
	var shown map[string]any
	if err := json.Unmarshal([]byte(r.out), &shown); err != nil || shown["address"] != "host.n1" {
		t.Fatalf("state show -json = %v (%v)", shown, err)
	}
	r = f.mustRun(1, "state", "show", "host.nope")
	mustContain(t, "state show unknown", r.err, "host.nope is not in the state")

	r = f.mustRun(1, "state", "rm", "host.n2", "host.nope")
	mustContain(t, "state rm unknown", r.err, "host.nope is not in the state", "nothing was removed")
	if r = f.mustRun(0, "state", "list"); r.out != "host.n1\nhost.n2\n" {
		t.Fatalf("a failed state rm removed something: %q", r.out)
	}
	r = f.mustRun(0, "state", "rm", "host.n2")
	mustContain(t, "state rm", r.out, "Removed 1 resource from the state.")
	if r = f.mustRun(0, "state", "list"); r.out != "host.n1\n" {
		t.Fatalf("state list after rm = %q", r.out)
	}
	if _, err := os.Stat(f.statePath() + ".backup"); err != nil {
		t.Fatalf("state rm kept no backup: %v", err)
	}
	// Forgetting changed nothing on the host: n2's files are still there,
	// and the next plan would create it again.
	if len(f.rootFiles()) == 0 {
		t.Fatal("state rm touched the host")
	}
	r = f.mustRun(0, "plan", "-refresh=false")
	mustContain(t, "plan after rm", r.out, "# host.n2 will be created", "Plan: 1 to add, 0 to change, 0 to destroy.")
}

func TestForceUnlock(t *testing.T) {
	f := newFixture(t)
	lock, err := state.AcquireLock(f.statePath(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Unlock() })

	r := f.mustRun(1, "force-unlock", "not-the-id")
	mustContain(t, "wrong ID", r.err, "not-the-id")
	if _, err := os.Stat(lock.Path()); err != nil {
		t.Fatalf("a wrong ID removed the lock: %v", err)
	}
	r = f.mustRun(0, "force-unlock", lock.Info.ID)
	mustContain(t, "right ID", r.out, "The state lock "+lock.Info.ID+" was removed.")
	if _, err := os.Stat(lock.Path()); !os.IsNotExist(err) {
		t.Fatalf("the lock is still there: %v", err)
	}
	r = f.mustRun(1, "force-unlock", lock.Info.ID)
	if r.err == "" {
		t.Fatal("force-unlock without a lock said nothing")
	}
}

func TestLockHeldRefusesApply(t *testing.T) {
	for _, cmd := range []string{"apply", "destroy"} {
		t.Run(cmd, func(t *testing.T) {
			f := newFixture(t)
			lock, err := state.AcquireLock(f.statePath(), "apply")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = lock.Unlock() })
			r := f.mustRun(1, cmd, "-auto-approve")
			mustContain(t, "stderr", r.err, "is locked by", lock.Info.Owner, lock.Info.ID, "force-unlock")
			if len(f.rootFiles()) != 0 {
				t.Fatal("a refused apply changed the host")
			}
			if _, err := os.Stat(lock.Path()); err != nil {
				t.Fatalf("the refused command removed someone else's lock: %v", err)
			}
		})
	}
}
