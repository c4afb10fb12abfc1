package kubestate

import (
	"context"
	"fmt"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/eggo-project/eggo/state"
)

// Store is one cluster's state in a namespace, with its lock.
type Store struct {
	cfg    Config
	src    source
	secret resource[*corev1.Secret, *corev1.SecretList]
	leases resource[*coordv1.Lease, *coordv1.LeaseList]
	// held is what Close releases if its holder did not; the lock held
	// also names the writer of what the store writes.
	held state.HeldLocks[*Lock]
}

// Open finds the cluster (see Config.Kubeconfig) and checks that it
// answers and lets this user read the state (a read of the head Secret),
// so a wrong kubeconfig, server, CA or missing permission fails here,
// saying which.
func Open(ctx context.Context, c Config) (*Store, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	src, err := c.resolve()
	if err != nil {
		return nil, err
	}
	if why := ValidateNamespace(src.namespace); why != "" {
		return nil, fmt.Errorf("kubernetes backend: %s (from %s)", why, src.what)
	}
	rc := src.rest
	rc.Timeout = c.RequestTimeout
	secrets, leases, err := clients(rc, src.namespace)
	if err != nil {
		return nil, fmt.Errorf("kubernetes backend: %s: %w", src.what, err)
	}
	s := &Store{cfg: c, src: src, secret: secrets, leases: leases}
	if err := s.probe(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// probe reads the head once; no state yet is fine.
func (s *Store) probe(ctx context.Context) error {
	_, err := s.secret.get(ctx, s.headName())
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	return s.explain("reading", "secrets", err)
}

// Namespace is where the state lives.
func (s *Store) Namespace() string { return s.src.namespace }

// HeadName is the name of the Secret that holds (or points at) the state.
func (s *Store) HeadName() string { return s.headName() }

// LeaseName is the name of the Lease that locks it.
func (s *Store) LeaseName() string { return s.leaseName() }

// Describe names the state's Secret and the server, for messages.
func (s *Store) Describe() string {
	return fmt.Sprintf("kubernetes secret %s/%s (%s)", s.src.namespace, s.headName(), s.src.rest.Host)
}

// Close releases any lock still held through this store.
func (s *Store) Close() error { return s.held.UnlockAll() }
