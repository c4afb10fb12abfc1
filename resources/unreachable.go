package resources

import (
	"errors"

	"github.com/eggo-project/eggo/providers"
)

// IsUnreachable reports whether err says a host could not be reached at
// all (as opposed to a command that ran and failed).
func IsUnreachable(err error) bool {
	var u *providers.UnreachableError
	return errors.As(err, &u)
}

// UnreachableHost names the host of an unreachable error ("" if none).
func UnreachableHost(err error) string {
	var u *providers.UnreachableError
	if errors.As(err, &u) {
		return u.Host
	}
	return ""
}
