package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/eggo-project/eggo/state"
)

// sharedOpTimeout bounds one read or write of the state in a shared store.
const sharedOpTimeout = 30 * time.Second

// sharedStore is a store several machines share (etcd, a Kubernetes
// cluster), versioned by R: a revision, a resourceVersion. R's zero value
// means "no state". Put and Delete act only if the stored version is the
// one given; otherwise they refuse, writing nothing.
type sharedStore[R comparable] interface {
	Describe() string
	Get(ctx context.Context) (data []byte, rev R, err error)
	Put(ctx context.Context, data []byte, expect R) (R, error)
	Delete(ctx context.Context, expect R) error
	Lock(ctx context.Context, info state.LockInfo, wait time.Duration) (heldLock, error)
	ForceUnlock(ctx context.Context, id string) error
	Close() error
}

// heldLock is a shared store's lock: Held is nil while it holds.
type heldLock interface {
	state.Unlocker
	Held() error
}

// sharedBackend is the Backend over a shared store, with the rule every
// shared backend keeps: a write is checked against the version this
// process last read or wrote, so if anyone else wrote in between the write
// is refused and nothing is lost; and a write under a lock this process
// has lost (its lease expired, or was force-unlocked) is refused too,
// before another run's could interleave with it.
type sharedBackend[R comparable] struct {
	store sharedStore[R]
	wait  time.Duration // how long Lock waits for a held lock

	mu      sync.Mutex
	keyring *state.Keyring
	rev     R        // version of the last Read or Write; zero: none yet
	last    []byte   // what was last read or written
	lock    heldLock // the lock this process holds, if any
}

func (b *sharedBackend[R]) Describe() string { return b.store.Describe() }

func (b *sharedBackend[R]) SetKeyring(k *state.Keyring) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keyring = k
}

func (b *sharedBackend[R]) Read() (*state.State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
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
	return state.DecodeWith(data, b.Describe(), b.keyring)
}

func (b *sharedBackend[R]) Write(s *state.State) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, err := state.MarshalWith(s, b.keyring)
	if err != nil {
		return err
	}
	// Refuse what the reader would refuse, as the file store does.
	if _, err := state.Decode(data, b.Describe()); err != nil {
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
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
	defer cancel()
	rev, err := b.store.Put(ctx, data, b.rev)
	if err != nil {
		return err
	}
	b.rev, b.last = rev, data
	return nil
}

func (b *sharedBackend[R]) Lock(operation string) (state.Unlocker, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.wait+sharedOpTimeout)
	defer cancel()
	l, err := b.store.Lock(ctx, state.LockInfo{Operation: operation}, b.wait)
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
func (b *sharedBackend[R]) ForceUnlock(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
	defer cancel()
	return b.store.ForceUnlock(ctx, id)
}

// Delete removes the state (migrating it elsewhere), if nobody wrote since
// this process read it.
func (b *sharedBackend[R]) Delete() error {
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
	defer cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.store.Delete(ctx, b.rev)
}

func (b *sharedBackend[R]) Close() error { return b.store.Close() }
