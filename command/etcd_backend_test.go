package command

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// etcdScenarios read the state key's history, which etcd keeps, and see
// the lock go with a dead holder's lease.
var etcdScenarios = []scenario{
	{"concurrent applies with a lock_timeout", testEtcdConcurrentWait},
	{"a killed holder's lock frees after lock_ttl", testEtcdKilledHolder},
}

// testEtcdConcurrentWait: the second apply starts while the first holds
// the lock, waits for it, and then plans from the first one's state.
func testEtcdConcurrentWait(t *testing.T, b sharedBackend) {
	s, etcd := siteWith[*etcdStore](t, b, "15s", "60s")
	s.setDelay(3)
	first := s.start("apply", "-auto-approve")
	holder := s.lockHolder(first, 30*time.Second)
	if holder.PID != first.cmd.Process.Pid {
		t.Fatalf("the lock is held by pid %d, want the first apply's %d", holder.PID, first.cmd.Process.Pid)
	}
	// The first apply has loaded its configuration (it locks after);
	// the second one changes a label, so it has something to write.
	s.writeConfig("  labels = { zone = \"b\" }\n")
	second := s.start("apply", "-auto-approve")
	ra := first.wait(60 * time.Second)
	rb := second.wait(60 * time.Second)
	if ra.code != 0 || rb.code != 0 {
		t.Fatalf("both applies should succeed in turn: exits %d and %d\nfirst:\n%s\nsecond:\n%s", ra.code, rb.code, ra.all(), rb.all())
	}
	mustContain(t, "the first apply", ra.out, "Apply complete! Resources: 1 added, 0 changed")
	// Planned after the first one's writes: an update of what it created.
	mustContain(t, "the second apply", rb.out, "Apply complete! Resources: 0 added, 1 changed")
	if !first.ended.Before(second.ended) {
		t.Error("the waiting apply ended before the lock holder")
	}
	h := assertSequential(t, etcd.history())
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

// testEtcdKilledHolder kills -9 an apply holding the lock (lock_ttl 3s):
// the next apply is refused at once while the lease lives and succeeds
// after, when etcd has deleted the lock with its lease.
func testEtcdKilledHolder(t *testing.T, b sharedBackend) {
	const ttl = 3 * time.Second
	s, etcd := siteWith[*etcdStore](t, b, "3s", "0s")
	holder, killed := s.killedHolder()

	r := s.mustRun(1, "apply", "-auto-approve")
	refusedAfter := time.Since(killed)
	mustContain(t, "apply while the dead holder's lease lives", r.err, "is locked by",
		fmt.Sprintf("pid %d, apply", holder.PID), holder.ID, "frees by itself 3s after")
	if refusedAfter > ttl {
		t.Fatalf("the refusal came %s after the kill: it waited", refusedAfter)
	}

	freed := s.waitUnlocked(15 * time.Second)
	if d := freed.Sub(killed); d < ttl/3 || d > ttl+5*time.Second {
		t.Fatalf("the lock freed %s after the kill, want about lock_ttl (%s)", d, ttl)
	}
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply after the lease expired", r.out, "Apply complete!")
	if ok := time.Since(killed) >= ttl/3; !ok {
		t.Fatal("the apply succeeded before the lease could expire")
	}
	assertSequential(t, etcd.history())
}
