package engine

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"sync"
	"time"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
	"github.com/eggo-project/eggo/state/etcdstate"
)

func init() { openEtcd = newEtcdBackend }

// etcdOpTimeout bounds one read or write of the state in etcd.
const etcdOpTimeout = 30 * time.Second

// etcdBackend keeps the state under one key in etcd. Every write is
// checked against the revision this process last read or wrote: if anyone
// else wrote in between, the write is refused and nothing is lost.
type etcdBackend struct {
	store *etcdstate.Store
	wait  time.Duration // how long Lock waits for a held lock

	mu      sync.Mutex
	keyring *state.Keyring
	rev     int64  // revision of the last Read or Write; 0: none yet
	last    []byte // what was last read or written
}

func newEtcdBackend(be *config.Backend, cluster string) (state.Backend, error) {
	ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
	defer cancel()
	s, err := etcdstate.Open(ctx, etcdstate.Config{
		Endpoints: be.Endpoints, Prefix: be.Prefix, Cluster: cluster,
		CAFile: be.CAFile, CertFile: be.CertFile, KeyFile: be.KeyFile, LockTTL: be.LockTTL,
	})
	if err != nil {
		return nil, err
	}
	return &etcdBackend{store: s, wait: be.LockTimeout}, nil
}

func (b *etcdBackend) Describe() string { return b.store.Describe() }

func (b *etcdBackend) SetKeyring(k *state.Keyring) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keyring = k
}

func (b *etcdBackend) Read() (*state.State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
	defer cancel()
	data, rev, err := b.store.Get(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) {
		// Seeing no state is a read too: the next write creates it. Keeping
		// the old revision and bytes would refuse that write as stale, or
		// skip it as unchanged while etcd holds nothing.
		b.rev, b.last = 0, nil
	}
	if err != nil {
		return nil, err
	}
	b.rev, b.last = rev, data
	return state.DecodeWith(data, b.Describe(), b.keyring)
}

func (b *etcdBackend) Write(s *state.State) error {
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
	if b.rev != 0 && bytes.Equal(data, b.last) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
	defer cancel()
	rev, err := b.store.Put(ctx, data, b.rev)
	if err != nil {
		return err
	}
	b.rev, b.last = rev, data
	return nil
}

func (b *etcdBackend) Lock(operation string) (state.Unlocker, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.wait+etcdOpTimeout)
	defer cancel()
	return b.store.Lock(ctx, state.LockInfo{Operation: operation}, b.wait)
}

// ForceUnlock removes the lock whose ID is id.
func (b *etcdBackend) ForceUnlock(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
	defer cancel()
	return b.store.ForceUnlock(ctx, id)
}

// Delete removes the state key (migrating back to a file), if nobody wrote
// since this process read it.
func (b *etcdBackend) Delete() error {
	ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
	defer cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.store.Delete(ctx, b.rev)
}

func (b *etcdBackend) Close() error { return b.store.Close() }
