package statetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/state"
)

// Lock is a held lock of a shared backend's store.
type Lock interface {
	Unlock() error
	// Lost is closed once the holder no longer holds the lock.
	Lost() <-chan struct{}
	// Held says why the lock is no longer held, or nil.
	Held() error
}

// Store is a shared backend's store, as far as its lock goes.
type Store[L Lock] interface {
	Lock(ctx context.Context, info state.LockInfo, wait time.Duration) (L, error)
	ForceUnlock(ctx context.Context, id string) error
}

// CheckForceUnlock is what every shared backend's force-unlock does, on
// two stores a and b of one state: it needs the holder's lock ID, frees
// the lock for another run at once, and the old holder learns it lost the
// lock (Held then says lostWhy) while its Unlock leaves the new holder's
// lock alone.
func CheckForceUnlock[L Lock, S Store[L]](t testing.TB, a, b S, lostWhy string) {
	t.Helper()
	ctx := context.Background()
	if err := b.ForceUnlock(ctx, "nothing"); err == nil || !strings.Contains(err.Error(), "not locked") {
		t.Fatalf("ForceUnlock of an unlocked state: %v", err)
	}
	// Completed here, as Lock would, so that the ID is known.
	info := state.LockInfo{Operation: "apply"}.Complete()
	held, err := a.Lock(ctx, info, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = b.ForceUnlock(ctx, "0123-not-the-id")
	if err == nil || !strings.Contains(err.Error(), info.ID) || !strings.Contains(err.Error(), "not freeing it") {
		t.Fatalf("ForceUnlock with a wrong ID: %v, want a refusal naming the real ID", err)
	}
	if _, err := b.Lock(ctx, state.LockInfo{}, 0); !errors.As(err, new(*state.LeaseLockedError)) {
		t.Fatalf("a refused ForceUnlock freed the lock: %v", err)
	}

	if err := b.ForceUnlock(ctx, info.ID); err != nil {
		t.Fatalf("ForceUnlock: %v", err)
	}
	l, err := b.Lock(ctx, state.LockInfo{Operation: "destroy"}, 0)
	if err != nil {
		t.Fatalf("Lock after ForceUnlock: %v", err)
	}
	defer l.Unlock()
	// The holder looks at its lock every third of its TTL (3s).
	select {
	case <-held.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost() not closed 5s after ForceUnlock")
	}
	if err := held.Held(); err == nil || !strings.Contains(err.Error(), lostWhy) {
		t.Fatalf("Held() of a force-unlocked lock: %v, want it to say %q", err, lostWhy)
	}
	if err := held.Unlock(); err == nil || !strings.Contains(err.Error(), "no longer held the lock") {
		t.Fatalf("Unlock of a force-unlocked lock: %v", err)
	}
	if _, err := a.Lock(ctx, state.LockInfo{}, 0); !errors.As(err, new(*state.LeaseLockedError)) {
		t.Fatalf("the old holder's Unlock released the new holder's lock: %v", err)
	}
}
