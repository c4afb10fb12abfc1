package kubestate

import (
	"testing"
	"time"

	"github.com/eggo-project/eggo/state"
	"github.com/eggo-project/eggo/state/statetest"
)

func (e *env) testForceUnlock(t *testing.T) {
	c := e.config(t, "demo")
	// The old holder's next renewal finds another holder.
	statetest.CheckForceUnlock[*Lock](t, open(t, c), open(t, c), "was taken by")
}

// testKilledHolder: a holder killed with SIGKILL cannot unlock; its lock
// stays held until its Lease expires (3s), then frees by itself.
func (e *env) testKilledHolder(t *testing.T) {
	c := e.config(t, "demo")
	holder := statetest.StartHolder(t, holderEnv, c)
	time.Sleep(1500 * time.Millisecond) // it has renewed once
	killed := holder.Kill(t)

	s := open(t, c)
	_, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	holder.WantNamedIn(t, err)
	l, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 10*time.Second)
	if err != nil {
		t.Fatalf("Lock waiting for the killed holder's Lease to expire: %v", err)
	}
	defer l.Unlock()
	freed := time.Since(killed)
	if freed > 3*time.Second+2*time.Second {
		t.Fatalf("the lock freed %s after the kill, want within its 3s TTL", freed)
	}
	t.Logf("the lock freed %s after the holder was killed (TTL 3s)", freed)
}
