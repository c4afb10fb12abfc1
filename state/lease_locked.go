package state

import (
	"fmt"
	"time"
)

// LeaseLockedError says another run holds the lock of a shared backend
// (etcd, kubernetes), whose lock lives on a lease: it expires by itself
// after its holder dies, which is what this error tells the user, unlike
// LockedError's lock file (a path, and a staleness only a pid on this host
// can show). Every shared backend returns this one, so a refused run reads
// the same wherever the state is.
type LeaseLockedError struct {
	Where   string   // the backend's Describe()
	Holder  LockInfo // zero if ReadErr is set
	ReadErr error    // why the holder could not be named
	TTL     time.Duration
	Waited  time.Duration // 0: refused at once
}

func (e *LeaseLockedError) Error() string {
	waited := ""
	if e.Waited > 0 {
		waited = fmt.Sprintf(" (waited %s)", e.Waited)
	}
	if e.ReadErr != nil {
		return fmt.Sprintf("%s is locked by another run%s, which could not be named (%v): the lock frees by itself %s after its holder dies",
			e.Where, waited, e.ReadErr, e.TTL)
	}
	return fmt.Sprintf("%s is locked by %s, held for %s%s: the lock frees by itself %s after that run dies, or run `eggo force-unlock %s`",
		e.Where, e.Holder.Describe(), heldFor(e.Holder.Created), waited, e.TTL, e.Holder.ID)
}

// heldFor is how long ago since was, in whole seconds (never negative: the
// holder's clock may run ahead of ours).
func heldFor(since time.Time) time.Duration {
	d := time.Since(since).Round(time.Second)
	if d < 0 {
		return 0
	}
	return d
}
