package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"
)

// memStore is a SharedStore in memory, versioned by a counter, refusing a
// Put or Delete whose expected version is not the stored one, as etcd's
// and Kubernetes' stores do. The real stores run the same rules in
// command's TestSharedBackends.
type memStore struct {
	mu      sync.Mutex
	data    []byte
	rev     int64 // 0: no state
	next    int64
	puts    int
	lockErr error    // what Lock refuses with, if set
	lock    *memLock // the last lock taken
}

var errStale = errors.New("stale: the state changed since it was read")

func (s *memStore) Describe() string { return "memory" }

func (s *memStore) Get(context.Context) ([]byte, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rev == 0 {
		return nil, 0, fs.ErrNotExist
	}
	return append([]byte(nil), s.data...), s.rev, nil
}

func (s *memStore) Put(_ context.Context, data []byte, expect int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if expect != s.rev {
		return 0, fmt.Errorf("%w (expected version %d, stored %d)", errStale, expect, s.rev)
	}
	s.next++
	s.data, s.rev = append([]byte(nil), data...), s.next
	s.puts++
	return s.rev, nil
}

func (s *memStore) Delete(_ context.Context, expect int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if expect != s.rev {
		return errStale
	}
	s.data, s.rev = nil, 0
	return nil
}

func (s *memStore) Lock(_ context.Context, info LockInfo, _ time.Duration) (HeldLock, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lockErr != nil {
		return nil, s.lockErr
	}
	s.lock = &memLock{info: info}
	return s.lock, nil
}

func (s *memStore) ForceUnlock(context.Context, string) error { return nil }
func (s *memStore) Close() error                              { return nil }

// stored is the store's state, decoded.
func (s *memStore) stored(t *testing.T) *State {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := Decode(s.data, "memory")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// memLock is a lock whose loss a test decides.
type memLock struct {
	mu       sync.Mutex
	info     LockInfo
	lost     error
	unlocked bool
}

func (l *memLock) Held() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

func (l *memLock) lose(why error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lost = why
}

func (l *memLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unlocked = true
	return nil
}

// withSerial is sampleState at serial n.
func withSerial(n uint64) *State {
	s := sampleState()
	s.Serial = n
	return s
}

var _ Backend = (*SharedBackend[int64])(nil)

// TestSharedBackendRefusesAWriteOverAnother: two runs read the same
// version; the second to write is refused and the first's state stays —
// no update is lost.
func TestSharedBackendRefusesAWriteOverAnother(t *testing.T) {
	store := &memStore{}
	if err := NewSharedBackend[int64](store, 0).Write(withSerial(1)); err != nil {
		t.Fatal(err)
	}
	a, b := NewSharedBackend[int64](store, 0), NewSharedBackend[int64](store, 0)
	for _, be := range []*SharedBackend[int64]{a, b} {
		if _, err := be.Read(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Write(withSerial(2)); err != nil {
		t.Fatalf("the first writer: %v", err)
	}
	if err := b.Write(withSerial(3)); !errors.Is(err, errStale) {
		t.Fatalf("the second writer, over a version it never read: err = %v, want the store's refusal", err)
	}
	if got := store.stored(t).Serial; got != 2 {
		t.Errorf("the store holds serial %d, want the first writer's 2", got)
	}
	// Its own writes are the versions it writes on next.
	if err := a.Write(withSerial(4)); err != nil {
		t.Fatalf("the first writer again, on its own write: %v", err)
	}
	// Reading again is what lets the refused run write.
	if _, err := b.Read(); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(withSerial(5)); err != nil {
		t.Fatalf("the second writer after reading again: %v", err)
	}
	if got := store.stored(t).Serial; got != 5 {
		t.Errorf("the store holds serial %d, want 5", got)
	}
}

// TestSharedBackendRefusesAWriteUnderALostLock: once the lock this run
// took is lost (its lease expired, or it was force-unlocked), no write
// reaches the store, even one the version check would let through.
func TestSharedBackendRefusesAWriteUnderALostLock(t *testing.T) {
	store := &memStore{}
	b := NewSharedBackend[int64](store, 0)
	unlock, err := b.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	if store.lock.info.Operation != "apply" {
		t.Errorf("the lock was taken for %q, want apply", store.lock.info.Operation)
	}
	if err := b.Write(withSerial(1)); err != nil {
		t.Fatalf("a write under a held lock: %v", err)
	}
	store.lock.lose(errors.New("the lease expired"))
	err = b.Write(withSerial(2))
	if err == nil || !strings.Contains(err.Error(), "no longer held") || !strings.Contains(err.Error(), "the lease expired") ||
		!strings.Contains(err.Error(), "Nothing was written") {
		t.Fatalf("a write under a lost lock: err = %v, want a refusal saying why the lock is gone", err)
	}
	if store.puts != 1 || store.stored(t).Serial != 1 {
		t.Errorf("the store was written %d times and holds serial %d, want once and 1", store.puts, store.stored(t).Serial)
	}
	// Once this run unlocks, the lost lock no longer stands in the way.
	if err := unlock.Unlock(); err != nil {
		t.Fatal(err)
	}
	if !store.lock.unlocked {
		t.Error("Unlock did not release the store's lock")
	}
	if err := b.Write(withSerial(2)); err != nil {
		t.Fatalf("a write after unlocking: %v", err)
	}
}

// TestSharedBackendLockRefused: a lock the store refuses is the store's
// error, and no lock is recorded for later writes.
func TestSharedBackendLockRefused(t *testing.T) {
	held := &LeaseLockedError{Where: "memory", Holder: LockInfo{ID: "1", Operation: "apply"}, TTL: time.Minute}
	store := &memStore{lockErr: held}
	b := NewSharedBackend[int64](store, 0)
	u, err := b.Lock("plan")
	if !errors.Is(err, held) || u != nil {
		t.Fatalf("Lock = %v, %v; want nil and the store's *LeaseLockedError", u, err)
	}
	if err := b.Write(withSerial(1)); err != nil {
		t.Fatalf("a write without a lock: %v", err)
	}
}

// TestSharedBackendSkipsAnUnchangedWrite: writing what was last read
// writes nothing (and so bumps no version another run would trip on).
func TestSharedBackendSkipsAnUnchangedWrite(t *testing.T) {
	store := &memStore{}
	if err := NewSharedBackend[int64](store, 0).Write(withSerial(1)); err != nil {
		t.Fatal(err)
	}
	b := NewSharedBackend[int64](store, 0)
	st, err := b.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(st); err != nil {
		t.Fatal(err)
	}
	if store.puts != 1 {
		t.Errorf("the store was written %d times, want once: the second write changed nothing", store.puts)
	}
}

// TestSharedBackendReadOfNoStateForgetsTheVersion: seeing no state is a
// read too — the next write creates the state, neither refused as stale
// nor skipped as unchanged.
func TestSharedBackendReadOfNoStateForgetsTheVersion(t *testing.T) {
	store := &memStore{}
	b := NewSharedBackend[int64](store, 0)
	if err := b.Write(withSerial(1)); err != nil {
		t.Fatal(err)
	}
	// Someone else removes it (state migrate elsewhere).
	if err := NewSharedBackend[int64](store, 0).Delete(); !errors.Is(err, errStale) {
		t.Fatalf("a Delete by a run that never read: %v, want the store's refusal", err)
	}
	if err := b.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of no state: %v, want fs.ErrNotExist", err)
	}
	if err := b.Write(withSerial(1)); err != nil {
		t.Fatalf("writing the same state again after reading none: %v", err)
	}
	if store.puts != 2 || store.stored(t).Serial != 1 {
		t.Errorf("the store was written %d times, want twice: the state was created again", store.puts)
	}
}

// TestSharedBackendRefusesWhatTheReaderWould: a state the reader would
// refuse never reaches the store.
func TestSharedBackendRefusesWhatTheReaderWould(t *testing.T) {
	store := &memStore{}
	bad := withSerial(1)
	bad.FormatVersion = FormatVersion + 1
	if err := NewSharedBackend[int64](store, 0).Write(bad); err == nil {
		t.Fatal("a state of a newer format was written")
	}
	if store.puts != 0 {
		t.Errorf("the store was written %d times, want never", store.puts)
	}
}
