package command

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/state"
)

// testSharedMigrate moves an applied state file into the backend and back
// to the file; a migrate onto a state refuses and moves nothing.
func testSharedMigrate(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "15s", "0s")
	// Apply with the file first: no backend block yet.
	os.Remove(filepath.Join(s.dir, "backend.hcl"))
	s.mustRun(0, "apply", "-auto-approve")
	fileData, err := os.ReadFile(s.statePath())
	if err != nil {
		t.Fatal(err)
	}
	s.writeBackend("15s", "0s")

	to := "-to=" + s.backend
	r := s.mustRun(1, "state", "migrate", "-to="+otherSharedBackend(s.backend))
	mustContain(t, "migrate to a backend the configuration does not name", r.err, fmt.Sprintf("the configuration's backend is %q", s.backend))
	r = s.mustRun(0, "state", "migrate", to)
	mustContain(t, "migrate "+to, r.out, "Moved the state", s.store.where(), "eggo.state.migrated")
	if fileExists(s.statePath()) || fileExists(s.statePath()+".lock") {
		t.Fatalf("migrate %s left eggo.state or its lock in place", to)
	}
	migrated, err := os.ReadFile(s.statePath() + ".migrated")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(migrated, fileData) {
		t.Fatal("the .migrated file is not the state file as it was")
	}
	if _, data, _ := s.stored(); !bytes.Equal(data, fileData) {
		t.Fatalf("%s holds\n%s\nnot the state file as it was\n%s", s.store.what(), data, fileData)
	}
	if pulled := s.mustRun(0, "state", "pull").out; pulled != string(fileData) {
		t.Fatalf("state pull after migrate\n%s\ndiffers from the migrated file\n%s", pulled, fileData)
	}
	mustContain(t, "plan after migrate", s.mustRun(0, "plan").out, "No changes.")

	// The destination holds a state: refused, nothing moved.
	if err := os.Rename(s.statePath()+".migrated", s.statePath()); err != nil {
		t.Fatal(err)
	}
	_, data, version := s.stored()
	r = s.mustRun(1, "state", "migrate", to)
	mustContain(t, "migrate onto a state", r.err, s.store.where(), "already holds a state", "nothing was moved")
	s.assertUnchanged(data, version)
	r = s.mustRun(1, "state", "migrate", "-to=file")
	mustContain(t, "migrate onto a state file", r.err, "eggo.state already holds a state", "nothing was moved")
	s.assertUnchanged(data, version)

	os.Remove(s.statePath())
	r = s.mustRun(0, "state", "migrate", "-to=file")
	mustContain(t, "migrate -to=file", r.out, "Moved the state", "deleted it from "+s.store.where(),
		fmt.Sprintf("Remove the backend %q block", s.backend))
	back, err := os.ReadFile(s.statePath())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, data) {
		t.Fatalf("the state file after migrate -to=file\n%s\ndiffers from what %s held\n%s", back, s.store.what(), data)
	}
	if _, _, ok := s.store.read(); ok {
		t.Fatalf("migrate -to=file left the state in %s", s.store.what())
	}
	s.assertUnlocked("migrate -to=file")
	os.Remove(filepath.Join(s.dir, "backend.hcl"))
	mustContain(t, "plan on the file again", s.mustRun(0, "plan").out, "No changes.")
}

// testSharedPush: state push refuses a file older than the backend's
// state, another cluster's, or other content at the same serial, leaving
// the backend as it was; the same file again is no write, and -force
// pushes anyway.
func testSharedPush(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "15s", "0s")
	s.mustRun(0, "apply", "-auto-approve")
	old := filepath.Join(t.TempDir(), "old.state")
	pulled := s.mustRun(0, "state", "pull").out
	writeFile(t, old, pulled)
	oldSt, _, _ := s.stored()

	s.writeConfig("  labels = { zone = \"b\" }\n")
	s.mustRun(0, "apply", "-auto-approve")
	newSt, newData, version := s.stored()
	if newSt.Serial <= oldSt.Serial {
		t.Fatalf("the second apply left serial %d after %d", newSt.Serial, oldSt.Serial)
	}

	r := s.mustRun(1, "state", "push", old)
	mustContain(t, "stale push", r.err, "stale", old, s.store.where(),
		fmt.Sprintf("serial %d", newSt.Serial), fmt.Sprintf("at %d", oldSt.Serial))
	s.assertUnchanged(newData, version)

	// Another cluster's state (another lineage, a newer serial even).
	other := newFixture(t)
	other.mustRun(0, "apply", "-auto-approve")
	other.writeConfig("  labels = { zone = \"c\" }\n")
	other.mustRun(0, "apply", "-auto-approve")
	other.writeConfig("  labels = { zone = \"d\" }\n")
	other.mustRun(0, "apply", "-auto-approve")
	otherSt, err := state.Read(other.statePath())
	if err != nil {
		t.Fatal(err)
	}
	r = s.mustRun(1, "state", "push", other.statePath())
	mustContain(t, "push of another lineage", r.err, "another cluster's state", newSt.Lineage, otherSt.Lineage)
	s.assertUnchanged(newData, version)

	// The same serial as the backend's with other content.
	edited := filepath.Join(t.TempDir(), "edited.state")
	newPulled := s.mustRun(0, "state", "pull").out
	writeFile(t, edited, strings.Replace(newPulled, `"127.0.0.1"`, `"127.0.0.2"`, 1))
	if newPulled == strings.Replace(newPulled, `"127.0.0.1"`, `"127.0.0.2"`, 1) {
		t.Fatal("the test's edit changed nothing")
	}
	r = s.mustRun(1, "state", "push", edited)
	mustContain(t, "push of other content at the same serial", r.err, fmt.Sprintf("same serial %d with other content", newSt.Serial))
	s.assertUnchanged(newData, version)
	// The same file again is a no-op, not a write.
	writeFile(t, edited, newPulled)
	s.mustRun(0, "state", "push", edited)
	s.assertUnchanged(newData, version)

	r = s.mustRun(0, "state", "push", "-force", old)
	mustContain(t, "push -force", r.out, fmt.Sprintf("Pushed %s (serial %d)", old, oldSt.Serial))
	if _, data, _ := s.stored(); string(data) != pulled {
		t.Fatalf("after push -force %s holds\n%s\nwant the pushed file\n%s", s.store.what(), data, pulled)
	}
	s.assertUnlocked("state push")
}

// otherSharedBackend is a shared backend that is not name, for a
// migrate -to the configuration does not name.
func otherSharedBackend(name string) string {
	if name == "etcd" {
		return "kubernetes"
	}
	return "etcd"
}
