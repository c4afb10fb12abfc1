package etcdstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/eggo-project/eggo/state"
)

// LockedError says another run holds the lock on the state key; its
// text is every shared backend's (state.LeaseLockedError).
type LockedError = state.LeaseLockedError

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
