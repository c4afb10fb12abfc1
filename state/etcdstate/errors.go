package etcdstate

import (
	"fmt"
	"io/fs"
)

// StaleError says a write was refused because the state key is no longer
// at the revision the writer read: another run wrote (or deleted) it since.
type StaleError struct {
	Key      string
	Expected int64 // 0: the writer expected no state
	Actual   int64 // 0: there is no state now
}

func (e *StaleError) Error() string {
	expected := fmt.Sprintf("expected revision %d", e.Expected)
	if e.Expected == 0 {
		expected = "expected no state yet"
	}
	if e.Actual == 0 {
		return fmt.Sprintf("etcd key %s: another run deleted the state (%s); nothing was written", e.Key, expected)
	}
	return fmt.Sprintf("etcd key %s: another run wrote the state (revision %d, %s); nothing was written",
		e.Key, e.Actual, expected)
}

// notFoundError says there is no state at the key yet.
type notFoundError struct{ where string }

func (e *notFoundError) Error() string { return "no state at " + e.where }

func (e *notFoundError) Is(target error) bool { return target == fs.ErrNotExist }
