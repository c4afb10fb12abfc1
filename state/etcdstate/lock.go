package etcdstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/eggo-project/eggo/state"
)

// Lock is a held lock on the state key: an etcd mutex owned by a session
// whose lease this process keeps alive. If the process dies, the lease
// expires after LockTTL and the lock is free again.
type Lock struct {
	Info state.LockInfo

	store    *Store
	session  *concurrency.Session
	mutex    *concurrency.Mutex
	lost     chan struct{} // closed when the lease is lost while held
	released chan struct{} // closed when Unlock starts

	unlockOnce sync.Once
	unlockErr  error
}

// lockPrefix is the mutex's prefix; each contender's key lies below it.
func (s *Store) lockPrefix() string { return s.key + "/lock" }

// lockInfoKey holds the holder's LockInfo, bound to its lease, so that a
// refused run can name the holder.
func (s *Store) lockInfoKey() string { return s.key + "/lock-info" }

// Lock takes the lock for the run that info describes; fields left empty
// are filled in (a new ID, this user@host, this pid, now). With wait 0 it
// is refused at once if another run holds it; otherwise it waits up to
// wait. A refusal is a *LockedError naming the holder.
func (s *Store) Lock(ctx context.Context, info state.LockInfo, wait time.Duration) (*Lock, error) {
	info = info.Complete()
	infoJSON, err := json.Marshal(info)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", s.Describe(), err)
	}
	ttl := s.cfg.lockTTLSeconds()
	// The lease is granted under ctx (which bounds this call), but the
	// session keeping it alive lives on the client's context: the lock
	// lasts until Unlock, not until ctx ends.
	grant, err := s.client.Grant(ctx, ttl)
	if err != nil {
		return nil, fmt.Errorf("locking %s: granting a lease: %w", s.Describe(), err)
	}
	session, err := concurrency.NewSession(s.client, concurrency.WithLease(grant.ID), concurrency.WithTTL(int(ttl)))
	if err != nil {
		s.revokeQuietly(grant.ID)
		return nil, fmt.Errorf("locking %s: keeping the lease alive: %w", s.Describe(), err)
	}
	mutex := concurrency.NewMutex(session, s.lockPrefix())
	if err := s.acquire(ctx, mutex, wait); err != nil {
		session.Close()
		return nil, err
	}
	// Name the holder, but only while this session still owns the mutex.
	resp, err := s.client.Txn(ctx).
		If(mutex.IsOwner()).
		Then(clientv3.OpPut(s.lockInfoKey(), string(infoJSON), clientv3.WithLease(grant.ID))).
		Commit()
	if err == nil && !resp.Succeeded {
		err = errors.New("the lock was lost right after it was taken (its lease expired)")
	}
	if err != nil {
		session.Close() // revoking the lease releases the mutex too
		return nil, fmt.Errorf("locking %s: recording the holder: %w", s.Describe(), err)
	}
	l := &Lock{
		Info:     info,
		store:    s,
		session:  session,
		mutex:    mutex,
		lost:     make(chan struct{}),
		released: make(chan struct{}),
	}
	go l.watchLease()
	s.held.Add(l)
	return l, nil
}

// acquire takes the mutex: at once or not at all with wait 0, else within
// wait. Refusals become a *LockedError.
func (s *Store) acquire(ctx context.Context, mutex *concurrency.Mutex, wait time.Duration) error {
	if wait <= 0 {
		err := mutex.TryLock(ctx)
		if errors.Is(err, concurrency.ErrLocked) {
			return s.lockedError(ctx, 0)
		}
		if err != nil {
			return fmt.Errorf("locking %s: %w", s.Describe(), err)
		}
		return nil
	}
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := mutex.Lock(waitCtx)
	if err != nil && waitCtx.Err() != nil && ctx.Err() == nil {
		return s.lockedError(ctx, wait)
	}
	if err != nil {
		return fmt.Errorf("locking %s: %w", s.Describe(), err)
	}
	return nil
}

// watchLease closes lost if the session ends while the lock is held: the
// keepalive failed, the lease expired, or someone force-unlocked it.
func (l *Lock) watchLease() {
	select {
	case <-l.session.Done():
		select {
		case <-l.released: // Unlock ended the session
		default:
			close(l.lost)
		}
	case <-l.released:
	}
}

// Lost is closed if the lock's lease is lost while it is held; from then
// on another run may take the lock, so the holder should stop writing.
func (l *Lock) Lost() <-chan struct{} { return l.lost }

// Held is nil while the lock is held, else why it is not: a write made
// after that could race another run's.
func (l *Lock) Held() error {
	select {
	case <-l.lost:
		return fmt.Errorf("the lock's lease on %s expired or was revoked (force-unlock?)", l.store.Describe())
	case <-l.released:
		return fmt.Errorf("the lock on %s was released", l.store.Describe())
	default:
		return nil
	}
}

// Unlock releases the mutex, deletes the holder's LockInfo and revokes the
// lease. It reports an error if the lock had been lost meanwhile; calling
// it again returns the first result.
func (l *Lock) Unlock() error {
	l.unlockOnce.Do(func() {
		close(l.released)
		l.store.held.Remove(l)
		l.unlockErr = l.release()
	})
	return l.unlockErr
}

func (l *Lock) release() error {
	s := l.store
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.DialTimeout)
	defer cancel()
	var errs []error
	// Conditional: if the lock was lost, the keys may be another run's now.
	resp, err := s.client.Txn(ctx).
		If(l.mutex.IsOwner()).
		Then(clientv3.OpDelete(s.lockInfoKey()), clientv3.OpDelete(l.mutex.Key())).
		Commit()
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf("unlocking %s: %w (the lock frees by itself within %s)", s.Describe(), err, s.cfg.LockTTL))
	case !resp.Succeeded:
		errs = append(errs, fmt.Errorf("unlocking %s: this run no longer held the lock (lock ID %s): its lease expired or it was force-unlocked",
			s.Describe(), l.Info.ID))
	}
	if err := l.session.Close(); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		errs = append(errs, fmt.Errorf("unlocking %s: revoking the lease: %w", s.Describe(), err))
	}
	return errors.Join(errs...)
}

// ForceUnlock frees the lock of another run, but only if its lock ID is id
// (so an old message cannot free a lock a live run took since): it revokes
// that run's lease, which deletes its mutex key and its LockInfo.
func (s *Store) ForceUnlock(ctx context.Context, id string) error {
	resp, err := s.client.Get(ctx, s.lockInfoKey())
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", s.Describe(), err)
	}
	if len(resp.Kvs) == 0 {
		return s.notLockedError(ctx)
	}
	kv := resp.Kvs[0]
	var held state.LockInfo
	if err := json.Unmarshal(kv.Value, &held); err != nil {
		return fmt.Errorf("force-unlock %s: the holder's lock info at %s is unreadable (%v): the lock frees by itself %s after its holder dies",
			s.Describe(), s.lockInfoKey(), err, s.cfg.LockTTL)
	}
	if held.ID != id {
		return fmt.Errorf("force-unlock %s: the lock ID is %s, not %s: not freeing it (held by %s)",
			s.Describe(), held.ID, id, held.Describe())
	}
	_, err = s.client.Revoke(ctx, clientv3.LeaseID(kv.Lease))
	if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) { // not found: it just expired
		return fmt.Errorf("force-unlock %s: revoking the holder's lease: %w", s.Describe(), err)
	}
	return nil
}

// notLockedError explains why there is nothing to force-unlock.
func (s *Store) notLockedError(ctx context.Context) error {
	owner, err := s.client.Get(ctx, s.lockPrefix()+"/", clientv3.WithFirstCreate()...)
	if err == nil && len(owner.Kvs) > 0 {
		return fmt.Errorf("force-unlock %s: it is locked by a run that has not named itself (lease %x): try again in a moment; the lock frees by itself %s after that run dies",
			s.Describe(), owner.Kvs[0].Lease, s.cfg.LockTTL)
	}
	return fmt.Errorf("force-unlock %s: it is not locked", s.Describe())
}

// revokeQuietly gives back a lease nobody will use; if that fails it
// expires by itself.
func (s *Store) revokeQuietly(id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.DialTimeout)
	defer cancel()
	s.client.Revoke(ctx, id)
}
