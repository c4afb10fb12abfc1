package engine

import (
	"context"
	"time"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
	"github.com/eggo-project/eggo/state/kubestate"
)

func init() { sharedBackends["kubernetes"] = newKubeBackend }

// newKubeBackend keeps the state in Secrets of a Kubernetes namespace,
// every write checked against the head Secret's resourceVersion (see
// state.SharedBackend), locked by a Lease.
func newKubeBackend(ctx context.Context, be *config.Backend, cluster string) (state.Backend, error) {
	ctx, cancel := context.WithTimeout(ctx, state.SharedOpTimeout)
	defer cancel()
	s, err := kubestate.Open(ctx, kubestate.Config{
		Kubeconfig: be.Kubeconfig, Context: be.Context, Namespace: be.Namespace,
		Cluster: cluster, LockTTL: be.LockTTL,
	})
	if err != nil {
		return nil, err
	}
	return state.NewSharedBackend[string](kubeStore{s}, be.LockTimeout), nil
}

// kubeStore is kubestate's Store as a state.SharedStore.
type kubeStore struct{ *kubestate.Store }

func (s kubeStore) Lock(ctx context.Context, info state.LockInfo, wait time.Duration) (state.HeldLock, error) {
	l, err := s.Store.Lock(ctx, info, wait)
	if err != nil {
		return nil, err // not a nil *Lock in a non-nil interface
	}
	return l, nil
}
