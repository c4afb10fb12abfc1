package kubestate

import (
	"context"
	"fmt"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Unlock stops the renewals and deletes the Lease, but only while it is
// still this holder's. It reports an error if the lock had been lost
// meanwhile; calling it again returns the first result.
func (l *Lock) Unlock() error {
	l.unlockOnce.Do(func() {
		close(l.released)
		<-l.done // no renewal in flight: the Lease is as l.lease says
		l.store.held.Remove(l)
		l.unlockErr = l.release()
	})
	return l.unlockErr
}

func (l *Lock) release() error {
	s := l.store
	select {
	case <-l.lost:
		return l.notHeld(l.lostErr)
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
	defer cancel()
	err := s.deleteLease(ctx, l.lease)
	if apierrors.IsConflict(err) {
		// Written since our last renewal: still ours only if it says so.
		cur, getErr := s.leases.get(ctx, s.leaseName())
		if getErr == nil {
			if foreign := s.owned(cur, partLock, toDelete); foreign != nil {
				return l.notHeld(foreign)
			}
		}
		switch {
		case getErr != nil:
			err = getErr
		case holder(cur) != l.id:
			return l.notHeld(fmt.Errorf("it is held by %q now", holder(cur)))
		default:
			err = s.deleteLease(ctx, cur)
		}
	}
	if apierrors.IsNotFound(err) {
		return l.notHeld(fmt.Errorf("its Lease %s was deleted (force-unlock?)", s.leaseName()))
	}
	if err != nil {
		return fmt.Errorf("unlocking %s: %w (the lock frees by itself within %s)", s.Describe(), s.explain("deleting", "leases", err), l.ttl)
	}
	return nil
}

func (l *Lock) notHeld(why error) error {
	return fmt.Errorf("unlocking %s: this run no longer held the lock (lock ID %s): %v", l.store.Describe(), l.Info.ID, why)
}

// deleteLease deletes the Lease only while it is l: its UID, at its
// resourceVersion.
func (s *Store) deleteLease(ctx context.Context, l *coordv1.Lease) error {
	return s.leases.delete(ctx, l)
}

// ForceUnlock frees the lock of another run, but only if its lock ID is id
// (so an old message cannot free a lock a live run took since): it
// deletes that run's Lease, at the version that names it. That run's next
// renewal finds the Lease gone, and its next write is refused. A Lease of
// its name that is not eggo's lock is refused (*ForeignError), and left.
func (s *Store) ForceUnlock(ctx context.Context, id string) error {
	cur, err := s.leases.get(ctx, s.leaseName())
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("force-unlock %s: it is not locked", s.Describe())
	}
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", s.Describe(), s.explain("reading", "leases", err))
	}
	if err := s.owned(cur, partLock, toDelete); err != nil {
		return fmt.Errorf("force-unlock %s: %w", s.Describe(), err)
	}
	if holder(cur) == "" {
		return fmt.Errorf("force-unlock %s: it is not locked", s.Describe())
	}
	held, err := lockInfo(cur)
	if err != nil {
		return fmt.Errorf("force-unlock %s: the holder %q cannot be named (%v): delete the Lease %s/%s by hand if that run is gone, or wait %s for it to expire",
			s.Describe(), holder(cur), err, s.src.namespace, s.leaseName(), ttlOf(cur, s.cfg.LockTTL))
	}
	if held.ID != id {
		return fmt.Errorf("force-unlock %s: the lock ID is %s, not %s: not freeing it (held by %s)",
			s.Describe(), held.ID, id, held.Describe())
	}
	err = s.deleteLease(ctx, cur)
	if isGoneOrMoved(err) {
		return fmt.Errorf("force-unlock %s: the lock changed hands while it was being freed: look again", s.Describe())
	}
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", s.Describe(), s.explain("deleting", "leases", err))
	}
	return nil
}
