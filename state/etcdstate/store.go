package etcdstate

import (
	"context"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/eggo-project/eggo/state"
)

// Store is one cluster's state key in etcd, with its lock.
type Store struct {
	cfg    Config
	key    string
	client *clientv3.Client
	held   state.HeldLocks[*Lock] // what Close releases if its holder did not
}

// Open connects to the etcd cluster and checks that it answers (a read of
// the state key), so a wrong endpoint, CA or certificate fails here, naming
// the endpoints and, for TLS problems, the file to look at.
func Open(ctx context.Context, c Config) (*Store, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	tlsConfig, err := c.tlsConfig()
	if err != nil {
		return nil, err
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   c.Endpoints,
		DialTimeout: c.DialTimeout,
		TLS:         tlsConfig,
		Context:     context.WithoutCancel(ctx),
		// The client's own retry warnings would interleave with eggo's
		// output; its errors reach the caller through ours instead.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd backend: connecting to %s: %w", strings.Join(c.Endpoints, ", "), err)
	}
	s := &Store{cfg: c, key: c.key(), client: client}
	if err := s.probe(ctx); err != nil {
		client.Close()
		return nil, err
	}
	return s, nil
}

// probe reads the state key's revision once, so that Open fails on an
// unreachable or untrusted cluster instead of the first real operation.
func (s *Store) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DialTimeout)
	defer cancel()
	if _, err := s.client.Get(ctx, s.key, clientv3.WithCountOnly()); err != nil {
		return s.explainConnectError(err)
	}
	return nil
}

// Key is the state key.
func (s *Store) Key() string { return s.key }

// Describe names the key and where it lives, for messages.
func (s *Store) Describe() string {
	return fmt.Sprintf("etcd key %s at %s", s.key, strings.Join(s.cfg.Endpoints, ", "))
}

// Close releases any lock still held through this store and disconnects.
func (s *Store) Close() error {
	firstErr := s.held.UnlockAll()
	if err := s.client.Close(); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("closing the connection to %s: %w", s.Describe(), err)
	}
	return firstErr
}
