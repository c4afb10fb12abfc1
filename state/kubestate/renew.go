package kubestate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/state"
)

// Lock is a held lock on the state: the Lease, renewed in the background
// every third of its duration until Unlock. If the process dies, the
// renewals stop and another run may take the Lease once it expires.
type Lock struct {
	Info state.LockInfo

	store *Store
	id    string // the Lease's holderIdentity while this holds it
	ttl   time.Duration

	mu      sync.Mutex
	lease   *coordv1.Lease // as this holder last wrote it
	renewed time.Time      // when the last take or renewal that succeeded was sent
	lostErr error

	lost     chan struct{} // closed when the Lease is lost while held
	released chan struct{} // closed when Unlock starts
	done     chan struct{} // closed when the renewals have stopped

	unlockOnce sync.Once
	unlockErr  error
}

func (s *Store) newLock(info state.LockInfo, lease *coordv1.Lease, sent time.Time) *Lock {
	return &Lock{
		Info: info, store: s, id: identity(info), ttl: ttlOf(lease, s.cfg.LockTTL),
		lease: lease, renewed: sent,
		lost: make(chan struct{}), released: make(chan struct{}), done: make(chan struct{}),
	}
}

// lostError is a renewal that showed the Lease is no longer this
// holder's; any other failed renewal is retried at the next tick.
type lostError struct{ error }

// renewLoop renews the Lease every third of its duration. It gives up
// when the Lease is another's or gone, or when no renewal has succeeded
// for the whole duration (from then on another run may take it).
func (l *Lock) renewLoop() {
	defer close(l.done)
	tick := time.NewTicker(l.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-l.released:
			return
		case <-tick.C:
		}
		err := l.renew()
		var lost lostError
		switch {
		case errors.As(err, &lost):
			l.markLost(lost.error)
			return
		case err != nil && time.Since(l.lastRenewed()) >= l.ttl:
			l.markLost(fmt.Errorf("no renewal of its Lease succeeded for %s, its whole duration (last error: %v)", l.ttl, err))
			return
		}
	}
}

// renew writes a new renewTime, at the resourceVersion this holder last
// wrote; a conflict is looked at once: still ours (someone edited the
// Lease) is renewed at the new version, another holder's is lost.
func (l *Lock) renew() error {
	s := l.store
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	l.mu.Lock()
	lease := l.lease.DeepCopy()
	l.mu.Unlock()
	for attempt := 1; ; attempt++ {
		sent := time.Now()
		at := metav1.NewMicroTime(sent)
		lease.Spec.RenewTime = &at
		out, err := s.leases.update(ctx, s.leaseName(), lease)
		if err == nil {
			l.mu.Lock()
			l.lease, l.renewed = out, sent
			l.mu.Unlock()
			return nil
		}
		if !apierrors.IsConflict(err) || attempt == 2 {
			return l.classify(err)
		}
		if lease, err = s.leases.get(ctx, s.leaseName()); err != nil {
			return l.classify(err)
		}
		if err := s.owned(lease, partLock, toRenew); err != nil {
			return lostError{err}
		}
		if holder(lease) != l.id {
			who := holder(lease)
			if info, err := lockInfo(lease); err == nil {
				who = info.Describe()
			}
			return lostError{fmt.Errorf("its Lease %s was taken by %s", s.leaseName(), who)}
		}
	}
}

func (l *Lock) classify(err error) error {
	if apierrors.IsNotFound(err) {
		return lostError{fmt.Errorf("its Lease %s was deleted (force-unlock?)", l.store.leaseName())}
	}
	return err
}

func (l *Lock) markLost(err error) {
	l.mu.Lock()
	l.lostErr = err
	l.mu.Unlock()
	close(l.lost)
}

func (l *Lock) lastRenewed() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.renewed
}

// Lost is closed if the lock is lost while held; from then on another run
// may take it, so the holder must stop writing.
func (l *Lock) Lost() <-chan struct{} { return l.lost }

// Held is nil while the lock is held, else why it is not. A holder whose
// last renewal is a whole duration old has lost it even if the renewal
// loop has not noticed yet (a request may hang until its timeout).
func (l *Lock) Held() error {
	select {
	case <-l.lost:
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.lostErr
	case <-l.released:
		return errors.New("the lock was released")
	default:
	}
	if ago := time.Since(l.lastRenewed()); ago >= l.ttl {
		return fmt.Errorf("its Lease was last renewed %s ago, longer than its %s duration", ago.Round(time.Millisecond), l.ttl)
	}
	return nil
}
