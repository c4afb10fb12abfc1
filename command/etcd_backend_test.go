package command

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/state"
)

// TestEtcdBackend drives the etcd state backend through the CLI against a
// real etcd (TLS, client certificates): plan/apply/state commands
// in-process, and concurrent or killed applies as real eggo processes.
func TestEtcdBackend(t *testing.T) {
	e := newEtcdEnv(t)
	t.Run("apply keeps the state in etcd", e.testApply)
	t.Run("push refuses a stale file or another lineage", e.testPush)
	t.Run("migrate to etcd and back", e.testMigrate)
	t.Run("concurrent applies with lock_timeout 0", e.testConcurrentRefused)
	t.Run("concurrent applies with a lock_timeout", e.testConcurrentWait)
	t.Run("a lock_timeout shorter than the holder's run", e.testWaitThenRefused)
	t.Run("two writers of one key", e.testRevisionCheck)
	t.Run("a killed holder's lock frees after lock_ttl", e.testKilledHolder)
	t.Run("force-unlock frees a killed holder's lock", e.testForceUnlock)
}

func (e *etcdEnv) testApply(t *testing.T) {
	s := e.site(t, "15s", "0s")
	r := s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply", r.out, "Apply complete! Resources: 1 added")
	assertNoStateFile(t, s.fixture)
	st, data := s.stored()
	if resource(st, "host.n1") == nil {
		t.Fatalf("the state in etcd has no host.n1:\n%s", data)
	}
	if _, _, ok := s.get(s.lockInfoKey()); ok {
		t.Fatal("the lock is still held after apply ended")
	}

	r = s.mustRun(0, "state", "pull")
	if r.out != string(data) {
		t.Fatalf("state pull printed\n%s\nbut etcd holds\n%s", r.out, data)
	}
	_, revBefore, _ := s.get(s.key())
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "second apply", r.out, "No changes.")
	if _, revAfter, _ := s.get(s.key()); revAfter != revBefore {
		t.Fatalf("a no-op apply wrote the state (revision %d → %d)", revBefore, revAfter)
	}
	r = s.mustRun(0, "state", "list")
	if r.out != "host.n1\n" {
		t.Fatalf("state list = %q, want host.n1 from etcd", r.out)
	}
	r = s.mustRun(0, "state", "show", "host.n1")
	mustContain(t, "state show", r.out, "127.0.0.1", "hello.txt")

	r = s.mustRun(0, "state", "rm", "host.n1")
	after, _ := s.stored()
	if resource(after, "host.n1") != nil || after.Serial != st.Serial+1 || after.Lineage != st.Lineage {
		t.Fatalf("after state rm etcd holds serial %d (was %d) with host.n1 %v", after.Serial, st.Serial, resource(after, "host.n1") != nil)
	}
	if _, _, ok := s.get(s.lockInfoKey()); ok {
		t.Fatal("state rm left the lock held")
	}
	// The list really comes from etcd: with the key gone there is no state.
	if _, err := e.client.Delete(bgCtx(t), s.key()); err != nil {
		t.Fatal(err)
	}
	r = s.mustRun(1, "state", "list")
	mustContain(t, "state list with the etcd key deleted", r.err, "no state at etcd key "+s.key())
	assertNoStateFile(t, s.fixture)
}

func (e *etcdEnv) testPush(t *testing.T) {
	s := e.site(t, "15s", "0s")
	s.mustRun(0, "apply", "-auto-approve")
	old := filepath.Join(t.TempDir(), "old.state")
	pulled := s.mustRun(0, "state", "pull").out
	writeFile(t, old, pulled)
	oldSt, _ := s.stored()

	s.writeConfig("  labels = { zone = \"b\" }\n")
	s.mustRun(0, "apply", "-auto-approve")
	newSt, newData := s.stored()
	if newSt.Serial <= oldSt.Serial {
		t.Fatalf("the second apply left serial %d after %d", newSt.Serial, oldSt.Serial)
	}
	_, rev, _ := s.get(s.key())

	r := s.mustRun(1, "state", "push", old)
	mustContain(t, "stale push", r.err, "stale", old, s.key(),
		fmt.Sprintf("serial %d", newSt.Serial), fmt.Sprintf("at %d", oldSt.Serial))
	assertUnchanged(t, s, newData, rev)

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
	assertUnchanged(t, s, newData, rev)

	// The same serial as etcd's with other content.
	edited := filepath.Join(t.TempDir(), "edited.state")
	newPulled := s.mustRun(0, "state", "pull").out
	writeFile(t, edited, strings.Replace(newPulled, `"127.0.0.1"`, `"127.0.0.2"`, 1))
	if newPulled == strings.Replace(newPulled, `"127.0.0.1"`, `"127.0.0.2"`, 1) {
		t.Fatal("the test's edit changed nothing")
	}
	r = s.mustRun(1, "state", "push", edited)
	mustContain(t, "push of other content at the same serial", r.err, fmt.Sprintf("same serial %d with other content", newSt.Serial))
	assertUnchanged(t, s, newData, rev)
	// The same file again is a no-op, not a write.
	writeFile(t, edited, newPulled)
	s.mustRun(0, "state", "push", edited)
	assertUnchanged(t, s, newData, rev)

	r = s.mustRun(0, "state", "push", "-force", old)
	mustContain(t, "push -force", r.out, fmt.Sprintf("Pushed %s (serial %d)", old, oldSt.Serial))
	if _, data := s.stored(); string(data) != pulled {
		t.Fatalf("after push -force etcd holds\n%s\nwant the pushed file\n%s", data, pulled)
	}
	if _, _, ok := s.get(s.lockInfoKey()); ok {
		t.Fatal("push left the lock held")
	}
}

func (e *etcdEnv) testMigrate(t *testing.T) {
	s := e.site(t, "15s", "0s")
	// Apply with the file first: no backend block yet.
	os.Remove(filepath.Join(s.dir, "backend.hcl"))
	s.mustRun(0, "apply", "-auto-approve")
	fileData, err := os.ReadFile(s.statePath())
	if err != nil {
		t.Fatal(err)
	}
	s.writeBackend("15s", "0s")

	r := s.mustRun(0, "state", "migrate", "-to=etcd")
	mustContain(t, "migrate -to=etcd", r.out, "Moved the state", s.key(), "eggo.state.migrated")
	if fileExists(s.statePath()) {
		t.Fatal("migrate -to=etcd left eggo.state in place")
	}
	migrated, err := os.ReadFile(s.statePath() + ".migrated")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(migrated, fileData) {
		t.Fatal("the .migrated file is not the state file as it was")
	}
	if pulled := s.mustRun(0, "state", "pull").out; pulled != string(migrated) {
		t.Fatalf("state pull after migrate\n%s\ndiffers from the migrated file\n%s", pulled, migrated)
	}
	mustContain(t, "plan after migrate", s.mustRun(0, "plan").out, "No changes.")
	if fileExists(s.statePath() + ".lock") {
		t.Fatal("migrate -to=etcd left the state file's lock behind")
	}

	// The destination holds a state: refused, nothing moved.
	writeFile(t, s.statePath(), "")
	if err := os.Rename(s.statePath()+".migrated", s.statePath()); err != nil {
		t.Fatal(err)
	}
	_, data, rev := storedWithRev(s)
	r = s.mustRun(1, "state", "migrate", "-to=etcd")
	mustContain(t, "migrate onto a state", r.err, s.key(), "already holds a state", "nothing was moved")
	assertUnchanged(t, s, data, rev)
	r = s.mustRun(1, "state", "migrate", "-to=file")
	mustContain(t, "migrate onto a state file", r.err, "eggo.state already holds a state", "nothing was moved")
	assertUnchanged(t, s, data, rev)

	os.Remove(s.statePath())
	r = s.mustRun(0, "state", "migrate", "-to=file")
	mustContain(t, "migrate -to=file", r.out, "Moved the state", "deleted it from etcd")
	back, err := os.ReadFile(s.statePath())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, data) {
		t.Fatalf("the state file after migrate -to=file\n%s\ndiffers from what etcd held\n%s", back, data)
	}
	if _, _, ok := s.get(s.key()); ok {
		t.Fatal("migrate -to=file left the state in etcd")
	}
	if _, _, ok := s.get(s.lockInfoKey()); ok {
		t.Fatal("migrate left the etcd lock held")
	}
	os.Remove(filepath.Join(s.dir, "backend.hcl"))
	mustContain(t, "plan on the file again", s.mustRun(0, "plan").out, "No changes.")
}

// testConcurrentRefused starts two applies at once: one takes the lock and
// holds it through a 3-second hook, the other is refused at once naming it.
func (e *etcdEnv) testConcurrentRefused(t *testing.T) {
	s := e.site(t, "15s", "0s")
	s.setDelay(3)
	a := s.start("apply", "-auto-approve")
	b := s.start("apply", "-auto-approve")
	ra, rb := a.wait(60*time.Second), b.wait(60*time.Second)
	win, lose, winner, loser := ra, rb, a, b
	if ra.code != 0 {
		win, lose, winner, loser = rb, ra, b, a
	}
	if win.code != 0 || lose.code != 1 {
		t.Fatalf("want exactly one apply to succeed and the other to fail: exits %d and %d\nfirst:\n%s\nsecond:\n%s", ra.code, rb.code, ra.all(), rb.all())
	}
	mustContain(t, "the winner", win.out, "Apply complete! Resources: 1 added")
	mustContain(t, "the refused apply", lose.err, s.key(), "is locked by",
		fmt.Sprintf("pid %d, apply", winner.cmd.Process.Pid), "eggo force-unlock")
	if !loser.ended.Before(winner.ended) {
		t.Error("the refused apply ended after the winner: it waited instead of being refused at once")
	}
	if strings.Contains(lose.out, "Apply complete") {
		t.Fatalf("the refused apply applied:\n%s", lose.out)
	}
	assertSequential(t, s.history())
	assertNoStateFile(t, s.fixture)
}

// testConcurrentWait: the second apply starts while the first holds the
// lock, waits for it, and then plans from the first one's state.
func (e *etcdEnv) testConcurrentWait(t *testing.T) {
	s := e.site(t, "15s", "60s")
	s.setDelay(3)
	a := s.start("apply", "-auto-approve")
	holder := s.lockHolder(a, 30*time.Second)
	if holder.PID != a.cmd.Process.Pid {
		t.Fatalf("the lock is held by pid %d, want the first apply's %d", holder.PID, a.cmd.Process.Pid)
	}
	// The first apply has loaded its configuration (it locks after);
	// the second one changes a label, so it has something to write.
	s.writeConfig("  labels = { zone = \"b\" }\n")
	b := s.start("apply", "-auto-approve")
	ra := a.wait(60 * time.Second)
	rb := b.wait(60 * time.Second)
	if ra.code != 0 || rb.code != 0 {
		t.Fatalf("both applies should succeed in turn: exits %d and %d\nfirst:\n%s\nsecond:\n%s", ra.code, rb.code, ra.all(), rb.all())
	}
	mustContain(t, "the first apply", ra.out, "Apply complete! Resources: 1 added, 0 changed")
	// Planned after the first one's writes: an update of what it created.
	mustContain(t, "the second apply", rb.out, "Apply complete! Resources: 0 added, 1 changed")
	if !a.ended.Before(b.ended) {
		t.Error("the waiting apply ended before the lock holder")
	}
	h := assertSequential(t, s.history())
	// Every write of the first apply comes before every write of the second.
	seenB := false
	for _, st := range h {
		r := resource(st, "host.n1")
		hasLabel := r != nil && strings.Contains(fmt.Sprint(r.Attributes), "zone")
		if seenB && !hasLabel {
			t.Fatalf("a write of the first apply (serial %d) came after the second apply's", st.Serial)
		}
		seenB = seenB || hasLabel
	}
	if !seenB {
		t.Fatal("no write in etcd carries the second apply's label")
	}
}

// testKilledHolder kills -9 an apply holding the lock (lock_ttl 3s): the
// next apply is refused at once while the lease lives and succeeds after.
func (e *etcdEnv) testKilledHolder(t *testing.T) {
	const ttl = 3 * time.Second
	s := e.site(t, "3s", "0s")
	s.setDelay(60)
	a := s.start("apply", "-auto-approve")
	holder := s.lockHolder(a, 30*time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.wait(10 * time.Second)
	killed := time.Now()
	s.setDelay(0)

	r := s.mustRun(1, "apply", "-auto-approve")
	refusedAfter := time.Since(killed)
	mustContain(t, "apply while the dead holder's lease lives", r.err, "is locked by",
		fmt.Sprintf("pid %d, apply", holder.PID), holder.ID, "frees by itself 3s after")
	if refusedAfter > ttl {
		t.Fatalf("the refusal came %s after the kill: it waited", refusedAfter)
	}

	freed := waitGone(t, s, s.lockInfoKey(), 15*time.Second)
	if d := freed.Sub(killed); d < ttl/3 || d > ttl+5*time.Second {
		t.Fatalf("the lock freed %s after the kill, want about lock_ttl (%s)", d, ttl)
	}
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply after the lease expired", r.out, "Apply complete!")
	if ok := time.Since(killed) >= ttl/3; !ok {
		t.Fatal("the apply succeeded before the lease could expire")
	}
	assertSequential(t, s.history())
}

// testForceUnlock kills -9 a holder whose lease lives 60s: force-unlock
// with the ID from the refusal frees it at once.
func (e *etcdEnv) testForceUnlock(t *testing.T) {
	s := e.site(t, "60s", "0s")
	s.setDelay(60)
	a := s.start("apply", "-auto-approve")
	holder := s.lockHolder(a, 30*time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.wait(10 * time.Second)
	s.setDelay(0)
	killed := time.Now()

	r := s.mustRun(1, "apply", "-auto-approve")
	mustContain(t, "apply before force-unlock", r.err, "eggo force-unlock "+holder.ID)
	r = s.mustRun(1, "force-unlock", "not-"+holder.ID)
	mustContain(t, "force-unlock of another ID", r.err, "not-"+holder.ID, holder.ID, "not freeing it")
	if _, _, ok := s.get(s.lockInfoKey()); !ok {
		t.Fatal("force-unlock with a wrong ID freed the lock")
	}
	r = s.mustRun(0, "force-unlock", holder.ID)
	mustContain(t, "force-unlock", r.out, "The state lock "+holder.ID+" was removed.")
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply after force-unlock", r.out, "Apply complete!")
	if d := time.Since(killed); d > 30*time.Second {
		t.Fatalf("apply after force-unlock took until %s after the kill", d)
	}
	r = s.mustRun(1, "force-unlock", holder.ID)
	mustContain(t, "force-unlock of a free lock", r.err, "not locked")
}

// testWaitThenRefused: with lock_timeout 1s an apply waits that long for a
// holder that runs 3s, then is refused naming it and saying it waited.
func (e *etcdEnv) testWaitThenRefused(t *testing.T) {
	s := e.site(t, "15s", "1s")
	s.setDelay(3)
	a := s.start("apply", "-auto-approve")
	holder := s.lockHolder(a, 30*time.Second)
	started := time.Now()
	r := s.mustRun(1, "apply", "-auto-approve")
	waited := time.Since(started)
	mustContain(t, "apply while the lock is held", r.err, "is locked by", fmt.Sprintf("pid %d, apply", holder.PID), "(waited 1s)")
	if waited < time.Second {
		t.Fatalf("refused after %s: it did not wait lock_timeout (1s)", waited)
	}
	if ra := a.wait(60 * time.Second); ra.code != 0 {
		t.Fatalf("the holder failed:\n%s", ra.all())
	}
}

// testRevisionCheck opens the backend twice, as two runs that both read
// the state would (the lock normally keeps them apart): the first write
// lands, the second, built on what it read before, is refused and leaves
// the first one's state in place. A run that read that there is no state
// may create it.
func (e *etcdEnv) testRevisionCheck(t *testing.T) {
	s := e.site(t, "15s", "0s")
	s.mustRun(0, "apply", "-auto-approve")
	one, two := openBackend(t, s.fixture), openBackend(t, s.fixture)
	st1, err := one.Read()
	if err != nil {
		t.Fatal(err)
	}
	st2, err := two.Read()
	if err != nil {
		t.Fatal(err)
	}
	st1.Outputs = map[string]any{"writer": "one"}
	st1.Serial++
	if err := one.Write(st1); err != nil {
		t.Fatalf("the first writer was refused: %v", err)
	}
	_, data, rev := storedWithRev(s)
	st2.Outputs = map[string]any{"writer": "two"}
	st2.Serial++
	err = two.Write(st2)
	if err == nil {
		t.Fatal("a write based on a revision another run had replaced was accepted: a lost update")
	}
	mustContain(t, "the stale write's error", err.Error(), s.key(), "another run wrote the state", "nothing was written")
	assertUnchanged(t, s, data, rev)

	// Reading afresh gives the second writer the current base.
	st2, err = two.Read()
	if err != nil {
		t.Fatal(err)
	}
	if st2.Outputs["writer"] != "one" {
		t.Fatalf("the second writer reads outputs %v, want the first one's", st2.Outputs)
	}
	st2.Serial++
	st2.Outputs = map[string]any{"writer": "two"}
	if err := two.Write(st2); err != nil {
		t.Fatalf("a write on the current revision was refused: %v", err)
	}

	// The state is deleted; a run that has seen it gone may write anew.
	if _, err := e.client.Delete(bgCtx(t), s.key()); err != nil {
		t.Fatal(err)
	}
	if _, err := one.Read(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a deleted state: %v, want fs.ErrNotExist", err)
	}
	if err := one.Write(st1); err != nil {
		t.Fatalf("writing after reading that there is no state: %v", err)
	}
	if got, _ := s.stored(); got.Outputs["writer"] != "one" {
		t.Fatalf("etcd holds outputs %v, want the first writer's", got.Outputs)
	}
}
