package kubestate

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/state"
)

// TestLeaseLock locks states through Leases of a real kube-apiserver.
func TestLeaseLock(t *testing.T) {
	e := newEnv(t)
	t.Run("a held lock is refused naming its holder", e.testRefused)
	t.Run("an expired lease is taken over", e.testExpired)
	t.Run("lock_timeout waits for the holder", e.testWait)
	t.Run("renewals keep a long command's lock", e.testRenewal)
	t.Run("a force-unlocked holder learns it lost the lock", e.testForceUnlock)
	t.Run("a killed holder's lock frees after its TTL", e.testKilledHolder)
	t.Run("a Lease at the lock's name that is not eggo's is refused", e.testForeignLease)
}

// lease is the cluster's Lease as the admin sees it; nil if there is none.
func (e *env) lease(t *testing.T, s *Store) *coordv1.Lease {
	t.Helper()
	l, err := e.srv.Client.CoordinationV1().Leases(s.Namespace()).Get(bg(), s.LeaseName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (e *env) testRefused(t *testing.T) {
	c := e.config(t, "demo")
	a, b := open(t, c), open(t, c)
	held, err := a.Lock(bg(), state.LockInfo{Owner: "alice@ops1", Operation: "apply"}, 0)
	if err != nil {
		t.Fatalf("first Lock: %v", err)
	}
	if held.Info.ID == "" || held.Info.PID != os.Getpid() || held.Info.Created.IsZero() {
		t.Fatalf("Lock did not complete its info: %+v", held.Info)
	}
	l := e.lease(t, a)
	if l == nil || !strings.Contains(holder(l), held.Info.ID) || *l.Spec.LeaseDurationSeconds != 3 ||
		!strings.Contains(l.Annotations[annLockInfo], "alice@ops1") {
		t.Fatalf("the Lease is %+v", l)
	}

	_, err = b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 0)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder != held.Info {
		t.Fatalf("second Lock: %v, want *LockedError naming %+v", err, held.Info)
	}
	wantIn(t, err.Error(), a.Describe(), "is locked by alice@ops1", fmt.Sprintf("pid %d", os.Getpid()), "apply",
		held.Info.ID, "held for", "frees by itself 3s after", "eggo force-unlock "+held.Info.ID)

	other := open(t, e.config(t, "demo-other"))
	ol, err := other.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatalf("the lock of another cluster: %v", err)
	}
	ol.Unlock()

	if err := held.Unlock(); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	if l := e.lease(t, a); l != nil {
		t.Fatalf("Unlock left the Lease: %+v", l.Spec)
	}
	if err := held.Unlock(); err != nil {
		t.Fatalf("a second Unlock: %v", err)
	}
	l2, err := b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 0)
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	l2.Unlock()
}

// ghostLease is a Lease left by a run that stopped renewing renewed ago.
func (e *env) ghostLease(t *testing.T, s *Store, renewed time.Duration) state.LockInfo {
	t.Helper()
	info := state.LockInfo{ID: "ghost-id", Owner: "ghost@gone", PID: 1, Operation: "apply", Created: time.Now().Add(-time.Hour).UTC()}
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.LeaseName()}}
	if err := s.take(l, info, time.Now().Add(-renewed)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.Client.CoordinationV1().Leases(s.Namespace()).Create(bg(), l, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return info
}

func (e *env) testExpired(t *testing.T) {
	s := open(t, e.config(t, "demo"))
	ghost := e.ghostLease(t, s, time.Minute)
	l, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatalf("Lock over a Lease expired a minute ago: %v", err)
	}
	lease := e.lease(t, s)
	if !strings.Contains(holder(lease), l.Info.ID) || *lease.Spec.LeaseTransitions != 1 {
		t.Fatalf("after the takeover the Lease is %+v", lease.Spec)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}

	// A Lease renewed a second ago is not expired (3s): refused, naming the ghost.
	e.ghostLease(t, s, time.Second)
	_, err = s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.ID != ghost.ID {
		t.Fatalf("Lock over a live Lease: %v", err)
	}
	wantIn(t, err.Error(), "ghost@gone", "held for 1h0m")
	// It expires: the waiting run takes it within the TTL.
	start := time.Now()
	l, err = s.Lock(bg(), state.LockInfo{Operation: "apply"}, 10*time.Second)
	if err != nil {
		t.Fatalf("Lock waiting for the Lease to expire: %v", err)
	}
	if waited := time.Since(start); waited > 4*time.Second {
		t.Errorf("took the expired Lease after %s, want within its 3s", waited)
	}
	l.Unlock()
}

func (e *env) testWait(t *testing.T) {
	c := e.config(t, "demo")
	a, b := open(t, c), open(t, c)
	held, err := a.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = b.Lock(bg(), state.LockInfo{Operation: "destroy"}, time.Second)
	took := time.Since(start)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.ID != held.Info.ID || locked.Waited != time.Second {
		t.Fatalf("Lock with a 1s wait on a held lock: %v", err)
	}
	if took < time.Second || took > 5*time.Second {
		t.Fatalf("gave up after %s, want about 1s", took)
	}
	wantIn(t, err.Error(), "(waited 1s)")

	// The holder unlocks after a second: the waiter gets the lock then.
	go func() {
		time.Sleep(time.Second)
		held.Unlock()
	}()
	start = time.Now()
	l, err := b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 20*time.Second)
	if err != nil {
		t.Fatalf("Lock waiting for the holder: %v", err)
	}
	defer l.Unlock()
	if took := time.Since(start); took < time.Second || took > 5*time.Second {
		t.Fatalf("the waiter got the lock after %s, want soon after the holder's Unlock at 1s", took)
	}
}

// testRenewal holds a 2s lock for 7s: renewals keep it, and it is refused
// to another run all along.
func (e *env) testRenewal(t *testing.T) {
	c := e.config(t, "demo")
	c.LockTTL = 2 * time.Second
	a, b := open(t, c), open(t, c)
	held, err := a.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	first := e.lease(t, a).Spec.RenewTime.Time
	for end := time.Now().Add(7 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		if _, err := b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 0); !errors.As(err, new(*LockedError)) {
			t.Fatalf("Lock while the holder renews: %v", err)
		}
		if err := held.Held(); err != nil {
			t.Fatalf("the holder lost its lock: %v", err)
		}
	}
	renewed := e.lease(t, a).Spec.RenewTime.Time
	if !renewed.After(first.Add(4 * time.Second)) {
		t.Fatalf("renewTime went from %s to %s in 7s, want renewals every ~0.7s", first, renewed)
	}
}
