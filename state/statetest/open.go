// Package statetest holds what the tests of the shared state backends
// (state/etcdstate, state/kubestate) share: a store opened for a test, and
// a lock holder in a process of its own that a test can kill.
package statetest

import (
	"context"
	"testing"
)

// Open opens the store that c configures with open (the backend's Open)
// and closes it when t ends.
func Open[C any, S interface{ Close() error }](t testing.TB, open func(context.Context, C) (S, error), c C) S {
	t.Helper()
	s, err := open(context.Background(), c)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
