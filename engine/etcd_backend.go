package engine

import (
	"context"
	"time"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
	"github.com/eggo-project/eggo/state/etcdstate"
)

func init() { sharedBackends["etcd"] = newEtcdBackend }

// newEtcdBackend keeps the state under one key in etcd, every write
// checked against the key's revision (see state.SharedBackend).
func newEtcdBackend(ctx context.Context, be *config.Backend, cluster string) (state.Backend, error) {
	ctx, cancel := context.WithTimeout(ctx, state.SharedOpTimeout)
	defer cancel()
	s, err := etcdstate.Open(ctx, etcdstate.Config{
		Endpoints: be.Endpoints, Prefix: be.Prefix, Cluster: cluster,
		CAFile: be.CAFile, CertFile: be.CertFile, KeyFile: be.KeyFile, LockTTL: be.LockTTL,
	})
	if err != nil {
		return nil, err
	}
	return state.NewSharedBackend[int64](etcdStore{s}, be.LockTimeout), nil
}

// etcdStore is etcdstate's Store as a state.SharedStore.
type etcdStore struct{ *etcdstate.Store }

func (s etcdStore) Lock(ctx context.Context, info state.LockInfo, wait time.Duration) (state.HeldLock, error) {
	l, err := s.Store.Lock(ctx, info, wait)
	if err != nil {
		return nil, err // not a nil *Lock in a non-nil interface
	}
	return l, nil
}
