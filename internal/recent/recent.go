// Package recent remembers the most recent answers of a pure function:
// what a plan computes again and again for the same input (the digest of
// a file every worker writes alike, a kubeconfig rendered twice for the
// same service) is computed once, and the memory held stays bounded
// whatever the plan's size.
package recent

import "sync"

// Memo holds at most Size answers (256 when 0). When full, it forgets
// them all at once: a value asked for by every node comes back at the
// next ask, and no order has to be kept per entry. Safe for concurrent use.
type Memo[K comparable, V any] struct {
	Size int

	mu      sync.Mutex
	answers map[K]V
	misses  int // how many answers were computed, for tests
}

// Get is compute's answer for key: remembered, or computed now (outside
// the lock) and remembered. compute must be a pure function of key.
func (m *Memo[K, V]) Get(key K, compute func() V) V {
	m.mu.Lock()
	v, ok := m.answers[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	size := m.Size
	if size <= 0 {
		size = 256
	}
	m.mu.Lock()
	if m.answers == nil || len(m.answers) >= size {
		m.answers = make(map[K]V, size)
	}
	m.answers[key] = v
	m.misses++
	m.mu.Unlock()
	return v
}

// Computed is how many answers were computed (not remembered) so far.
func (m *Memo[K, V]) Computed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.misses
}
