//go:build unix

package state

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid runs on this host; known is false when
// that cannot be told.
func processAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0) // signal 0: existence check only
	switch {
	case err == nil, errors.Is(err, syscall.EPERM):
		return true, true
	case errors.Is(err, syscall.ESRCH):
		return false, true
	}
	return false, false
}
