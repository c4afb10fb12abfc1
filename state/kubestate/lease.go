package kubestate

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/state"
)

// The lock is a Lease: spec.holderIdentity names the holding process,
// spec.renewTime + spec.leaseDurationSeconds says until when it holds it,
// and the annotation eggo.io/lock-info says who that is and why (the
// LockInfo every eggo lock records), for the message of a refused run.

// identity names this holder uniquely: host, pid, and the lock's random
// ID (two locks of one process are two holders).
func identity(info state.LockInfo) string {
	return fmt.Sprintf("%s/%d/%s", info.Owner, info.PID, info.ID)
}

// holder is the lease's holderIdentity, "" when nobody holds it.
func holder(l *coordv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// expiry is when the lease ends unless renewed: renewTime (or acquireTime)
// plus its duration; zero when it says neither.
func expiry(l *coordv1.Lease) time.Time {
	t := l.Spec.RenewTime
	if t == nil {
		t = l.Spec.AcquireTime
	}
	if t == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}
	}
	return t.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
}

// ttlOf is the holder's lease duration (what its refusal says the lock
// outlives it by), or def.
func ttlOf(l *coordv1.Lease, def time.Duration) time.Duration {
	if l.Spec.LeaseDurationSeconds == nil {
		return def
	}
	return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
}

var errNoHolderInfo = errors.New("its Lease records no lock info")

// lockInfo is the holder's LockInfo from the annotation.
func lockInfo(l *coordv1.Lease) (state.LockInfo, error) {
	var info state.LockInfo
	raw, ok := l.Annotations[annLockInfo]
	if !ok {
		return info, errNoHolderInfo
	}
	if err := json.Unmarshal([]byte(raw), &info); err != nil {
		return info, fmt.Errorf("its Lease's %s annotation: %w", annLockInfo, err)
	}
	return info, nil
}

// take makes l (a Lease read from the server, or a new one) this
// holder's from now, for ttl.
func (s *Store) take(l *coordv1.Lease, info state.LockInfo, now time.Time) error {
	raw, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[annLockInfo] = string(raw)
	l.Labels = s.labels(partLock)
	id, secs, at := identity(info), s.cfg.leaseSeconds(), metav1.NewMicroTime(now)
	transitions := int32(0)
	if l.Spec.LeaseTransitions != nil {
		transitions = *l.Spec.LeaseTransitions
	}
	if holder(l) != "" {
		transitions++ // taken over from an expired holder
	}
	l.Spec = coordv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &secs,
		AcquireTime: &at, RenewTime: &at, LeaseTransitions: &transitions}
	return nil
}
