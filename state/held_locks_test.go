package state

import (
	"errors"
	"testing"
)

// fakeLock forgets itself from its set when unlocked, as a store's lock
// does, and fails with err.
type fakeLock struct {
	set      *HeldLocks[*fakeLock]
	unlocked int
	err      error
}

func (l *fakeLock) Unlock() error {
	l.unlocked++
	l.set.Remove(l)
	return l.err
}

func TestHeldLocksUnlockAllReleasesWhatIsLeft(t *testing.T) {
	var set HeldLocks[*fakeLock]
	if _, ok := set.Any(); ok {
		t.Fatal("an empty set has a lock")
	}
	failed := errors.New("lease gone")
	released, kept, failing := &fakeLock{set: &set}, &fakeLock{set: &set}, &fakeLock{set: &set, err: failed}
	for _, l := range []*fakeLock{released, kept, failing} {
		set.Add(l)
	}
	released.Unlock()
	if err := set.UnlockAll(); !errors.Is(err, failed) {
		t.Fatalf("UnlockAll: %v, want the failing lock's error", err)
	}
	if released.unlocked != 1 || kept.unlocked != 1 || failing.unlocked != 1 {
		t.Fatalf("unlocked %d, %d, %d times, want each once", released.unlocked, kept.unlocked, failing.unlocked)
	}
	if l, ok := set.Any(); ok {
		t.Fatalf("after UnlockAll the set still holds %p", l)
	}
}
