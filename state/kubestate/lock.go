package kubestate

import (
	"context"
	"fmt"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/state"
)

// LockedError says another run holds the lock; its text is every shared
// backend's.
type LockedError = state.LeaseLockedError

// Waiting for a held lock looks at the Lease this often; a lost race for
// a free one looks again after raceDelay.
const (
	pollInterval = 500 * time.Millisecond
	raceDelay    = 20 * time.Millisecond
)

// Lock takes the lock for the run that info describes; fields left empty
// are filled in (a new ID, this user@host, this pid, now). With wait 0 it
// is refused at once if another run holds it; otherwise it waits up to
// wait. A refusal is a *LockedError naming the holder.
//
// The Lease is taken only when nobody holds it or its holder stopped
// renewing it (see observation.free), and always by an update at the
// resourceVersion just read: of two runs taking it at once, one wins. A
// Lease of its name that is not eggo's lock for this cluster (see owned)
// is refused at once, a *ForeignError.
func (s *Store) Lock(ctx context.Context, info state.LockInfo, wait time.Duration) (*Lock, error) {
	info = info.Complete()
	start := time.Now()
	var seen observation
	for {
		l, held, err := s.tryLock(ctx, info, &seen)
		if err != nil {
			return nil, err
		}
		if l != nil {
			s.held.Add(l)
			go l.renewLoop()
			return l, nil
		}
		delay := raceDelay
		if held != nil {
			left := wait - time.Since(start)
			if left <= 0 {
				return nil, s.lockedError(held, wait)
			}
			delay = min(pollInterval, left)
		}
		select {
		case <-ctx.Done():
			if held != nil {
				return nil, s.lockedError(held, time.Since(start).Round(time.Millisecond))
			}
			return nil, fmt.Errorf("locking %s: %w", s.Describe(), ctx.Err())
		case <-time.After(delay):
		}
	}
}

// tryLock takes the Lease if it is free. It returns the Lock, or the
// Lease of the run holding it, or neither when another run changed the
// Lease between the read and the write (a lost race: look again).
func (s *Store) tryLock(ctx context.Context, info state.LockInfo, seen *observation) (*Lock, *coordv1.Lease, error) {
	now := time.Now()
	cur, err := s.leases.get(ctx, s.leaseName())
	if apierrors.IsNotFound(err) {
		cur = &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.leaseName(), Namespace: s.src.namespace}}
		if err := s.take(cur, info, now); err != nil {
			return nil, nil, err
		}
		out, err := s.leases.create(ctx, cur)
		if apierrors.IsAlreadyExists(err) {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, s.explain("creating", "leases", err)
		}
		return s.newLock(info, out, now), nil, nil
	}
	if err != nil {
		return nil, nil, s.explain("reading", "leases", err)
	}
	// A Lease of this name that is not eggo's lock is someone else's: it
	// is neither waited for nor taken over.
	if err := s.owned(cur, partLock, toTakeOver); err != nil {
		return nil, nil, err
	}
	if !seen.free(cur, now) {
		return nil, cur, nil
	}
	if err := s.take(cur, info, now); err != nil {
		return nil, nil, err
	}
	out, err := s.leases.update(ctx, s.leaseName(), cur)
	if isGoneOrMoved(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, s.explain("updating", "leases", err)
	}
	return s.newLock(info, out, now), nil, nil
}

// observation remembers since when (on this machine's clock) a waiting
// run has seen the Lease unchanged.
type observation struct {
	rv    string
	since time.Time
}

// free says whether l may be taken: nobody holds it, or its holder's
// renewTime plus its duration has passed. A Lease a waiting run has seen
// unchanged for longer than its duration is free too, whatever the
// holder's clock wrote: the holder renews every third of it, so it has
// stopped (this is what keeps a holder whose clock runs ahead from
// keeping the lock forever).
func (o *observation) free(l *coordv1.Lease, now time.Time) bool {
	if holder(l) == "" {
		return true
	}
	if exp := expiry(l); exp.IsZero() || exp.Before(now) {
		return true
	}
	if o.rv != l.ResourceVersion {
		o.rv, o.since = l.ResourceVersion, now
		return false
	}
	return now.Sub(o.since) > ttlOf(l, 0)
}

// lockedError names the holder of l.
func (s *Store) lockedError(l *coordv1.Lease, waited time.Duration) *LockedError {
	info, err := lockInfo(l)
	if err != nil {
		err = fmt.Errorf("holder %q: %w", holder(l), err)
	}
	return &LockedError{Where: s.Describe(), Holder: info, ReadErr: err, TTL: ttlOf(l, s.cfg.LockTTL), Waited: waited}
}
