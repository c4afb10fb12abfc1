package etcdstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/eggo-project/eggo/state"
)

// LockedError says another run holds the lock on the state key.
//
// state.LockedError describes a lock file (its path, and a staleness that
// only a pid on this host can show); an etcd lock instead expires with its
// lease, which is what this error tells the user.
type LockedError struct {
	Where   string         // Store.Describe()
	Holder  state.LockInfo // zero if ReadErr is set
	ReadErr error          // why the holder could not be named
	TTL     time.Duration  // how long the lock outlives a dead holder
	Waited  time.Duration  // 0: refused at once
}

func (e *LockedError) Error() string {
	waited := ""
	if e.Waited > 0 {
		waited = fmt.Sprintf(" (waited %s)", e.Waited)
	}
	if e.ReadErr != nil {
		return fmt.Sprintf("%s is locked by another run%s, which could not be named (%v): the lock frees by itself %s after its holder dies",
			e.Where, waited, e.ReadErr, e.TTL)
	}
	return fmt.Sprintf("%s is locked by %s%s: the lock frees by itself %s after that run dies, or run `eggo force-unlock %s`",
		e.Where, e.Holder.Describe(), waited, e.TTL, e.Holder.ID)
}

// holderRetries bounds how long a refused run waits for the holder to
// record its LockInfo: the holder writes it right after taking the mutex.
const holderRetries = 5

// lockedError names the current holder.
func (s *Store) lockedError(ctx context.Context, waited time.Duration) *LockedError {
	e := &LockedError{Where: s.Describe(), TTL: s.cfg.LockTTL, Waited: waited}
	delay := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		e.Holder, e.ReadErr = s.readHolder(ctx)
		if e.ReadErr == nil || attempt == holderRetries {
			return e
		}
		select {
		case <-ctx.Done():
			return e
		case <-time.After(delay):
		}
		delay *= 2
	}
}

var errNoHolderInfo = errors.New("it has not recorded its lock info, or just released the lock")

func (s *Store) readHolder(ctx context.Context) (state.LockInfo, error) {
	var info state.LockInfo
	resp, err := s.client.Get(ctx, s.lockInfoKey())
	if err != nil {
		return info, fmt.Errorf("reading %s: %w", s.lockInfoKey(), err)
	}
	if len(resp.Kvs) == 0 {
		return info, errNoHolderInfo
	}
	if err := json.Unmarshal(resp.Kvs[0].Value, &info); err != nil {
		return info, fmt.Errorf("%s: %w", s.lockInfoKey(), err)
	}
	return info, nil
}
