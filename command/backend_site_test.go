package command

import (
	"bytes"
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/state"
)

// sharedBackend is a real server of a shared state backend (etcd, a
// kube-apiserver), shared by a test's subtests.
type sharedBackend interface {
	// name is the backend block's label, and state migrate's -to.
	name() string
	// newStore gives the subtest t a place of its own for its state.
	newStore(t *testing.T) backendStore
}

// backendStore is one site's state in a shared backend, as the tests look
// at it behind eggo's back.
type backendStore interface {
	// block is the backend block that keeps the state here.
	block(lockTTL, lockTimeout string) string
	// where is how eggo's messages name the state.
	where() string
	// what holds the state, in the tests' messages: "etcd", "the Secret".
	what() string
	// read is the stored state's bytes and version (versionName says
	// which: an etcd revision, a resourceVersion); ok is false when there
	// is none.
	read() (data []byte, version string, ok bool)
	versionName() string
	// remove deletes the state.
	remove()
	// lock is the lock as the backend records it: ok when the state is
	// locked, with the holder's info once it has named itself.
	lock() (holder state.LockInfo, ok bool)
}

// historian is a store that keeps every version of the state (etcd's
// MVCC history), oldest first.
type historian interface{ history() []*state.State }

// site is a fixture whose configuration keeps its state in a shared
// backend (backend.hcl beside the fixture's main.hcl), with a slow hook.
type site struct {
	*fixture
	*slowHook
	backend string // the backend block's label
	store   backendStore
}

func newSite(t *testing.T, b sharedBackend, lockTTL, lockTimeout string) *site {
	t.Helper()
	f := newFixture(t)
	s := &site{fixture: f, slowHook: f.addSlowHook(), backend: b.name(), store: b.newStore(t)}
	s.writeBackend(lockTTL, lockTimeout)
	return s
}

// siteWith is newSite for a backend's own scenarios: the site, and its
// store as that backend's type, to look at what only it has.
func siteWith[S backendStore](t *testing.T, b sharedBackend, lockTTL, lockTimeout string) (*site, S) {
	t.Helper()
	s := newSite(t, b, lockTTL, lockTimeout)
	return s, s.store.(S)
}

func (s *site) writeBackend(lockTTL, lockTimeout string) {
	s.t.Helper()
	s.write("backend.hcl", s.store.block(lockTTL, lockTimeout))
}

// stored is the state the backend holds, decoded, with its bytes and
// version; the test fails if there is none.
func (s *site) stored() (*state.State, []byte, string) {
	s.t.Helper()
	data, version, ok := s.store.read()
	if !ok {
		s.t.Fatalf("no state at %s", s.store.where())
	}
	st, err := state.Decode(data, s.store.where())
	if err != nil {
		s.t.Fatalf("the state in %s does not decode: %v", s.store.what(), err)
	}
	return st, data, version
}

// assertInBackend fails unless the state is in the backend and the
// configuration directory holds no state file.
func (s *site) assertInBackend() {
	s.t.Helper()
	assertNoStateFile(s.t, s.fixture)
	s.stored()
}

// assertUnchanged fails unless the backend holds data at version.
func (s *site) assertUnchanged(data []byte, version string) {
	s.t.Helper()
	got, gotVersion, ok := s.store.read()
	if !ok || gotVersion != version || !bytes.Equal(got, data) {
		s.t.Fatalf("a refused command changed the state in %s (%s %s → %s, present %v)",
			s.store.what(), s.store.versionName(), version, gotVersion, ok)
	}
}

// assertUnlocked fails if the state is still locked after the command.
func (s *site) assertUnlocked(command string) {
	s.t.Helper()
	if holder, ok := s.store.lock(); ok {
		s.t.Fatalf("the lock is still held after %s ended: %+v", command, holder)
	}
}

// lockHolder waits until a run holds the lock and has named itself, and
// returns it; the test fails if p ends first or after within.
func (s *site) lockHolder(p *proc, within time.Duration) state.LockInfo {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		select {
		case <-p.done:
			s.t.Fatalf("eggo %v ended (exit %d) before it held the lock:\n%s", p.cmd.Args[1:], p.code, p.output().all())
		default:
		}
		if holder, ok := s.store.lock(); ok && holder.ID != "" {
			return holder
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("nobody took the lock of %s within %s", s.store.where(), within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killedHolder starts an apply that holds the lock through a 60-second
// hook and kills it (-9) once it does: its lock stays until it expires or
// is force-unlocked. It returns the holder and when it died.
func (s *site) killedHolder() (state.LockInfo, time.Time) {
	s.t.Helper()
	s.setDelay(60)
	p := s.start("apply", "-auto-approve")
	holder := s.lockHolder(p, 30*time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		s.t.Fatal(err)
	}
	p.wait(10 * time.Second)
	s.setDelay(0)
	return holder, time.Now()
}

// waitUnlocked waits until the state is no longer locked and returns when
// that was seen; the test fails after within.
func (s *site) waitUnlocked(within time.Duration) time.Time {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if _, ok := s.store.lock(); !ok {
			return time.Now()
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s is still locked after %s", s.store.where(), within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertNoStateFile fails if the fixture's directory holds a state file,
// its backup or its lock: with a shared backend the state goes there.
// (The hooks' audit log, STATE.hooks.log, is local by design.)
func assertNoStateFile(t *testing.T, f *fixture) {
	t.Helper()
	var found []string
	all, _ := filepath.Glob(f.statePath() + "*")
	for _, p := range all {
		if p != engine.AuditLogPath(f.statePath()) {
			found = append(found, p)
		}
	}
	if len(found) > 0 {
		t.Fatalf("the shared backend left state files in the configuration directory: %v", found)
	}
}

// openBackend opens the fixture's state backend as a command does; it is
// closed when t ends.
func openBackend(t *testing.T, s *fixture) state.Backend {
	t.Helper()
	ws, err := engine.Open(context.Background(), engine.Request{Dir: s.dir})
	if err != nil {
		t.Fatalf("opening %s: %v", s.dir, err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws.Backend()
}

// resource is the resource at addr in st, or nil.
func resource(st *state.State, addr string) *state.Resource {
	for i := range st.Resources {
		if st.Resources[i].Address == addr {
			return &st.Resources[i]
		}
	}
	return nil
}

// ctx10s bounds a test's own call to a backend's server.
func ctx10s(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
