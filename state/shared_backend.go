package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// SharedOpTimeout bounds one read or write of the state in a shared store
// (and opening one).
const SharedOpTimeout = 30 * time.Second

// SharedStore is a store several machines share (etcd, a Kubernetes
// cluster), versioned by R: a revision, a resourceVersion. R's zero value
// means "no state". Put and Delete act only if the stored version is the
// one given; otherwise they refuse, writing nothing. etcdstate's and
// kubestate's Stores are the two there are.
type SharedStore[R comparable] interface {
	// Describe names the store in messages (Backend's Describe).
	Describe() string
	// Get returns the state and its version; errors.Is(err,
	// fs.ErrNotExist) when there is none.
	Get(ctx context.Context) (data []byte, rev R, err error)
	// Put writes data if the stored version is expect (zero: if there is
	// no state) and returns the new version.
	Put(ctx context.Context, data []byte, expect R) (R, error)
	// Delete removes the state if the stored version is expect.
	Delete(ctx context.Context, expect R) error
	// Lock takes the store's lock for info's operation, waiting up to wait
	// while another run holds it (then a *LeaseLockedError). A failed Lock
	// returns a nil HeldLock interface, not a nil pointer in one.
	Lock(ctx context.Context, info LockInfo, wait time.Duration) (HeldLock, error)
	// ForceUnlock removes the lock whose ID is id, whoever holds it.
	ForceUnlock(ctx context.Context, id string) error
	// Close releases what the store holds, locks included (HeldLocks).
	Close() error
}

// HeldLock is a shared store's lock: Held is nil while it holds, and says
// why not once it is lost (its lease expired, or it was force-unlocked).
type HeldLock interface {
	Unlocker
	Held() error
}

// SharedBackend is the Backend over a shared store, with the rules every
// shared backend keeps: a write is checked against the version this
// process last read or wrote, so if anyone else wrote in between the write
// is refused and nothing is lost; and a write under a lock this process
// has lost (its lease expired, or was force-unlocked) is refused too,
// before another run's could interleave with it. Besides Backend's
// methods it has ForceUnlock, Delete (for state migrate) and Close.
type SharedBackend[R comparable] struct {
	store SharedStore[R]
	wait  time.Duration // how long Lock waits for a held lock

	mu      sync.Mutex
	keyring *Keyring
	rev     R        // version of the last Read or Write; zero: none yet
	last    []byte   // what was last read or written
	lock    HeldLock // the lock this process holds, if any
}

// NewSharedBackend is the Backend over store; Lock waits up to wait for
// a lock another run holds.
func NewSharedBackend[R comparable](store SharedStore[R], wait time.Duration) *SharedBackend[R] {
	return &SharedBackend[R]{store: store, wait: wait}
}

// Describe is the store's Describe.
func (b *SharedBackend[R]) Describe() string { return b.store.Describe() }

// SetKeyring seals secrets on Write and opens them on Read.
func (b *SharedBackend[R]) SetKeyring(k *Keyring) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keyring = k
}

// Read returns the state and remembers its version, the one the next
// Write must find; errors.Is(err, fs.ErrNotExist) when there is none.
func (b *SharedBackend[R]) Read() (*State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), SharedOpTimeout)
	defer cancel()
	data, rev, err := b.store.Get(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	var none R
	if errors.Is(err, fs.ErrNotExist) {
		// Seeing no state is a read too: the next write creates it. Keeping
		// the old version and bytes would refuse that write as stale, or
		// skip it as unchanged while the store holds nothing.
		b.rev, b.last = none, nil
	}
	if err != nil {
		return nil, err
	}
	b.rev, b.last = rev, data
	return DecodeWith(data, b.Describe(), b.keyring)
}

// Write replaces the state if the store still holds the version last read
// or written, and never under a lock this process has lost. Writing what
// was last read or written again writes nothing.
func (b *SharedBackend[R]) Write(s *State) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, err := MarshalWith(s, b.keyring)
	if err != nil {
		return err
	}
	// Refuse what the reader would refuse, as the file store does.
	if _, err := Decode(data, b.Describe()); err != nil {
		return err
	}
	var none R
	if b.rev != none && bytes.Equal(data, b.last) {
		return nil
	}
	if b.lock != nil {
		if why := b.lock.Held(); why != nil {
			return fmt.Errorf("refusing to write %s: this run's lock is no longer held: %v; another run may hold it now. Nothing was written", b.Describe(), why)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), SharedOpTimeout)
	defer cancel()
	rev, err := b.store.Put(ctx, data, b.rev)
	if err != nil {
		return err
	}
	b.rev, b.last = rev, data
	return nil
}

// Lock takes the store's lock for operation; until it is unlocked, every
// Write first checks that it is still held.
func (b *SharedBackend[R]) Lock(operation string) (Unlocker, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.wait+SharedOpTimeout)
	defer cancel()
	l, err := b.store.Lock(ctx, LockInfo{Operation: operation}, b.wait)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.lock = l
	b.mu.Unlock()
	return unlockFunc(func() error {
		b.mu.Lock()
		if b.lock == l {
			b.lock = nil
		}
		b.mu.Unlock()
		return l.Unlock()
	}), nil
}

type unlockFunc func() error

func (f unlockFunc) Unlock() error { return f() }

// ForceUnlock removes the lock whose ID is id.
func (b *SharedBackend[R]) ForceUnlock(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), SharedOpTimeout)
	defer cancel()
	return b.store.ForceUnlock(ctx, id)
}

// Delete removes the state (migrating it elsewhere), if nobody wrote since
// this process read it.
func (b *SharedBackend[R]) Delete() error {
	ctx, cancel := context.WithTimeout(context.Background(), SharedOpTimeout)
	defer cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.store.Delete(ctx, b.rev)
}

// Close closes the store, releasing the locks it still holds.
func (b *SharedBackend[R]) Close() error { return b.store.Close() }
