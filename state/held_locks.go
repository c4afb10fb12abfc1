package state

import "sync"

// HeldLocks is the set of locks a shared backend's store has taken and
// not yet released. Closing the store releases what is left, so a run
// that failed before its Unlock frees the lock at once instead of after
// the lease's TTL. The zero value is empty and ready to use.
type HeldLocks[L interface {
	comparable
	Unlocker
}] struct {
	mu   sync.Mutex
	held map[L]struct{}
}

// Add records l, taken through the store.
func (h *HeldLocks[L]) Add(l L) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[L]struct{}{}
	}
	h.held[l] = struct{}{}
}

// Remove forgets l: its holder is releasing it.
func (h *HeldLocks[L]) Remove(l L) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, l)
}

// Any is one of the held locks, if there is one.
func (h *HeldLocks[L]) Any() (l L, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.held {
		return l, true
	}
	return l, false
}

// UnlockAll unlocks every lock still held and returns the first error.
// The set is copied first: each Unlock calls Remove.
func (h *HeldLocks[L]) UnlockAll() error {
	h.mu.Lock()
	locks := make([]L, 0, len(h.held))
	for l := range h.held {
		locks = append(locks, l)
	}
	h.mu.Unlock()
	var firstErr error
	for _, l := range locks {
		if err := l.Unlock(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}
