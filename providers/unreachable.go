package providers

// UnreachableError is a failed dial: the host could not be reached at all,
// so nothing was done on it. -force relies on that distinction to drop a
// dead host's resources from state without touching it.
type UnreachableError struct {
	Host string
	Err  error
}

func (e *UnreachableError) Error() string { return e.Err.Error() }

func (e *UnreachableError) Unwrap() error { return e.Err }
