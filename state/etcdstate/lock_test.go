package etcdstate

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/etcdtest"
	"github.com/eggo-project/eggo/state"
	"github.com/eggo-project/eggo/state/statetest"
)

func TestSecondLockIsRefusedNamingTheHolder(t *testing.T) {
	srv := etcdtest.Start(t)
	a := open(t, config(srv, "demo"))
	b := open(t, config(srv, "demo"))
	held, err := a.Lock(bg(), state.LockInfo{Owner: "alice@ops1", Operation: "apply"}, 0)
	if err != nil {
		t.Fatalf("first Lock: %v", err)
	}
	if held.Info.ID == "" || held.Info.PID != os.Getpid() || held.Info.Created.IsZero() {
		t.Fatalf("Lock did not complete its info: %+v", held.Info)
	}

	_, err = b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 0)
	var locked *LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second Lock: %v, want *LockedError", err)
	}
	if locked.Holder != held.Info {
		t.Fatalf("refusal names %+v, want the holder %+v", locked.Holder, held.Info)
	}
	for _, want := range []string{"etcd key /eggo/demo", "alice@ops1", fmt.Sprintf("pid %d", os.Getpid()), "apply",
		held.Info.ID, "frees by itself 3s after", "force-unlock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}

	// Another cluster's lock is independent.
	other := open(t, config(srv, "demo-other"))
	ol, err := other.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatalf("lock of another cluster: %v", err)
	}
	ol.Unlock()

	if err := held.Unlock(); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	// Unlock leaves no key behind: mutex, lock info and lease are gone.
	resp, err := a.client.Get(bg(), "/eggo/demo", withPrefix()...)
	if err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("keys left under /eggo/demo after Unlock: %v %v", resp.Kvs, err)
	}
	select {
	case <-held.Lost():
		t.Fatal("Lost() closed by a normal Unlock")
	default:
	}
	again, err := b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 0)
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	again.Unlock()
}

func TestLockWithWaitAcquiresAfterTheHolderUnlocks(t *testing.T) {
	srv := etcdtest.Start(t)
	a := open(t, config(srv, "demo"))
	b := open(t, config(srv, "demo"))
	held, err := a.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlockedAt := make(chan time.Time, 1)
	go func() {
		time.Sleep(700 * time.Millisecond)
		unlockedAt <- time.Now()
		held.Unlock()
	}()
	l, err := b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 10*time.Second)
	acquired := time.Now()
	if err != nil {
		t.Fatalf("Lock with wait: %v", err)
	}
	defer l.Unlock()
	if before := <-unlockedAt; acquired.Before(before) {
		t.Fatalf("acquired at %s, before the holder unlocked at %s", acquired, before)
	}
	// The waiter now names itself to the next one.
	_, err = a.Lock(bg(), state.LockInfo{}, 0)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.Operation != "destroy" {
		t.Fatalf("after the hand-over: %v, want the destroy run named", err)
	}
}

func TestLockWithWaitGivesUpNamingTheHolder(t *testing.T) {
	srv := etcdtest.Start(t)
	a := open(t, config(srv, "demo"))
	b := open(t, config(srv, "demo"))
	held, err := a.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	start := time.Now()
	_, err = b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 800*time.Millisecond)
	took := time.Since(start)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.ID != held.Info.ID || locked.Waited != 800*time.Millisecond {
		t.Fatalf("Lock with a wait on a held lock: %v, want *LockedError naming %s after waiting", err, held.Info.ID)
	}
	if took < 800*time.Millisecond || took > 5*time.Second {
		t.Fatalf("gave up after %s, want about 800ms", took)
	}
	if !strings.Contains(err.Error(), "waited 800ms") {
		t.Errorf("refusal %q does not say how long it waited", err)
	}
	// The waiter cleaned up: only the holder's keys remain.
	resp, err := a.client.Get(bg(), a.lockPrefix()+"/", withPrefix()...)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("mutex keys after a waiter gave up: %d (%v), want only the holder's", len(resp.Kvs), err)
	}
}

func TestForceUnlockNeedsTheHoldersIDAndEndsItsLock(t *testing.T) {
	srv := etcdtest.Start(t)
	// The old holder's keepalive sees its revoked lease.
	statetest.CheckForceUnlock[*Lock](t, open(t, config(srv, "demo")), open(t, config(srv, "demo")), "expired or was revoked")
}

// A holder killed with SIGKILL cannot unlock: the lock stays held until
// its lease expires, then frees by itself.
func TestLockOfAKilledHolderFreesAfterItsTTL(t *testing.T) {
	srv := etcdtest.Start(t)
	c := config(srv, "demo")
	holder := statetest.StartHolder(t, holderEnv, c)
	killed := holder.Kill(t)

	s := open(t, c)
	_, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	holder.WantNamedIn(t, err)
	var locked *LockedError

	for {
		l, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
		if err == nil {
			freed := time.Since(killed)
			l.Unlock()
			if freed < time.Second {
				t.Fatalf("the lock freed %s after the kill, before its 3s lease could expire", freed)
			}
			t.Logf("the lock freed %s after the holder was killed (TTL 3s)", freed)
			return
		}
		if !errors.As(err, &locked) {
			t.Fatalf("Lock while waiting for the lease to expire: %v", err)
		}
		if time.Since(killed) > 3*time.Second+5*time.Second {
			t.Fatalf("still locked %s after the holder was killed, with a 3s TTL: %v", time.Since(killed), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestCloseReleasesALockItsHolderForgot(t *testing.T) {
	srv := etcdtest.Start(t)
	a, err := Open(bg(), config(srv, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Lock(bg(), state.LockInfo{Operation: "apply"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	b := open(t, config(srv, "demo"))
	l, err := b.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatalf("Lock right after the holder's store closed: %v", err)
	}
	l.Unlock()
}
