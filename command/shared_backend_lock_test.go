package command

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// testSharedConcurrentRefused starts two applies at once: one takes the
// lock and holds it through a 3-second hook, the other is refused at once
// naming it.
func testSharedConcurrentRefused(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "15s", "0s")
	s.setDelay(3)
	first := s.start("apply", "-auto-approve")
	second := s.start("apply", "-auto-approve")
	r1, r2 := first.wait(60*time.Second), second.wait(60*time.Second)
	win, lose, winner, loser := r1, r2, first, second
	if r1.code != 0 {
		win, lose, winner, loser = r2, r1, second, first
	}
	if win.code != 0 || lose.code != 1 {
		t.Fatalf("want exactly one apply to succeed and the other to fail: exits %d and %d\nfirst:\n%s\nsecond:\n%s", r1.code, r2.code, r1.all(), r2.all())
	}
	mustContain(t, "the winner", win.out, "Apply complete! Resources: 1 added")
	mustContain(t, "the refused apply", lose.err, s.store.where(), "is locked by",
		fmt.Sprintf("pid %d, apply", winner.cmd.Process.Pid), "held for", "eggo force-unlock")
	if !loser.ended.Before(winner.ended) {
		t.Error("the refused apply ended after the winner: it waited instead of being refused at once")
	}
	if strings.Contains(lose.out, "Apply complete") {
		t.Fatalf("the refused apply applied:\n%s", lose.out)
	}
	if h, ok := s.store.(historian); ok {
		assertSequential(t, h.history())
	}
	s.assertInBackend()
}

// testSharedWaitThenRefused: with lock_timeout 1s an apply waits that
// long for a holder that runs 3s, then is refused naming it and saying it
// waited.
func testSharedWaitThenRefused(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "15s", "1s")
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

// testSharedTwoWriters opens the backend twice, as two runs that both
// read the state would (the lock normally keeps them apart): the first
// write lands, the second, built on what it read before, is refused and
// leaves the first one's state in place. A run that read that there is no
// state may create it.
func testSharedTwoWriters(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "15s", "0s")
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
	st1.Outputs, st2.Outputs = map[string]any{"writer": "one"}, map[string]any{"writer": "two"}
	st1.Serial++
	st2.Serial++
	if err := one.Write(st1); err != nil {
		t.Fatalf("the first writer was refused: %v", err)
	}
	_, data, version := s.stored()
	err = two.Write(st2)
	if err == nil {
		t.Fatal("a write based on a version another run had replaced was accepted: a lost update")
	}
	mustContain(t, "the stale write's error", err.Error(), s.store.where(), "another run wrote the state",
		s.store.versionName()+" "+version, "nothing was written")
	s.assertUnchanged(data, version)

	// Reading afresh gives the second writer the current base.
	if st2, err = two.Read(); err != nil || st2.Outputs["writer"] != "one" {
		t.Fatalf("the second writer reads outputs %v (%v), want the first one's", st2.Outputs, err)
	}
	st2.Serial++
	st2.Outputs = map[string]any{"writer": "two"}
	if err := two.Write(st2); err != nil {
		t.Fatalf("a write on the current version was refused: %v", err)
	}

	// The state is deleted; a run that has seen it gone may write anew.
	s.store.remove()
	if _, err := one.Read(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a deleted state: %v, want fs.ErrNotExist", err)
	}
	if err := one.Write(st1); err != nil {
		t.Fatalf("writing after reading that there is no state: %v", err)
	}
	if got, _, _ := s.stored(); got.Outputs["writer"] != "one" {
		t.Fatalf("%s holds outputs %v, want the first writer's", s.store.what(), got.Outputs)
	}
}

// testSharedForceUnlock kills -9 a holder whose lock lasts 60s:
// force-unlock with the ID from the refusal frees it at once.
func testSharedForceUnlock(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "60s", "0s")
	holder, killed := s.killedHolder()

	r := s.mustRun(1, "apply", "-auto-approve")
	mustContain(t, "apply before force-unlock", r.err, "is locked by", fmt.Sprintf("pid %d, apply", holder.PID),
		"frees by itself 1m0s after", "eggo force-unlock "+holder.ID)
	r = s.mustRun(1, "force-unlock", "not-"+holder.ID)
	mustContain(t, "force-unlock of another ID", r.err, "not-"+holder.ID, holder.ID, "not freeing it")
	if _, ok := s.store.lock(); !ok {
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
