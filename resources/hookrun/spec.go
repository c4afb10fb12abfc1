package hookrun

import (
	"fmt"
	"path"
	"regexp"
	"time"
)

// Defaults for Spec fields left zero.
const (
	DefaultTimeout = 60 * time.Second
	DefaultGrace   = 30 * time.Second
	// DefaultRetryAttempts is the number of attempts of a retry policy
	// that does not say.
	DefaultRetryAttempts = 3
	DefaultBackoff       = 5 * time.Second
	// MaxBackoff caps one wait between attempts, however many doublings.
	MaxBackoff = 5 * time.Minute
	// MaxAttempts bounds a retry policy: retries are never endless.
	MaxAttempts = 100
)

// Script is one file of a hook's source.
type Script struct {
	Name    string // the file's base name, for messages
	Content []byte
}

// FileCopy is a local file copied to the host before the hook's scripts
// run (tkestack's files src → dst), parent directories created.
type FileCopy struct {
	Src string // local path
	Dst string // absolute path on the host
}

// Policy says what a failed hook does to the operation it wraps.
type Policy string

const (
	// Abort stops the operation: Decision is DecisionAbort.
	Abort Policy = "abort"
	// Continue records the failure and lets the operation go on.
	Continue Policy = "continue"
	// Retry runs the hook again, up to Attempts times with exponential
	// backoff, then falls back to Fallback (abort or continue).
	Retry Policy = "retry"
)

// Spec is one hook run on one host.
type Spec struct {
	Hook    string     // the hook's name, for messages and EGGO_HOOK_NAME
	Scripts []Script   // run in this order; the first failure stops the attempt
	Files   []FileCopy // copied before the scripts, in every attempt
	// Env is exported to every script: EGGO_CLUSTER_ID, EGGO_NODE_IP,
	// EGGO_HOOK_TYPE … Run adds EGGO_HOOK_NAME and EGGO_HOOK_ATTEMPT.
	Env map[string]string
	// Args are the scripts' arguments ($@): cluster labels and annotations
	// as key=value, sorted by the caller. Each is passed as one word.
	Args []string
	// Timeout limits each script: then SIGTERM to its process group.
	Timeout time.Duration
	// Grace is how long after SIGTERM a script's group gets SIGKILL.
	Grace time.Duration
	// Policy is abort when empty.
	Policy Policy
	// Attempts bounds a retry policy (DefaultRetryAttempts when zero);
	// abort and continue make one attempt.
	Attempts int
	// Backoff is the wait before the first retry, doubled for each next.
	Backoff time.Duration
	// Fallback is what a retry policy does when its attempts are spent:
	// Abort (when empty) or Continue.
	Fallback Policy
	// TempDir is where the host keeps the scripts while they run (a fresh
	// private directory inside it, removed afterwards); /tmp when empty.
	TempDir string
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// withDefaults fills zero fields and checks the rest.
func (s Spec) withDefaults() (Spec, error) {
	if s.Hook == "" {
		return s, fmt.Errorf("hook without a name")
	}
	if len(s.Scripts) == 0 {
		return s, fmt.Errorf("hook %q has no scripts to run", s.Hook)
	}
	for k := range s.Env {
		if !envName.MatchString(k) {
			return s, fmt.Errorf("hook %q: environment variable name %q is not a shell name", s.Hook, k)
		}
	}
	for _, f := range s.Files {
		if !path.IsAbs(f.Dst) {
			return s, fmt.Errorf("hook %q: file %s: destination %q is not an absolute path", s.Hook, f.Src, f.Dst)
		}
	}
	if s.Timeout < 0 || s.Grace < 0 || s.Backoff < 0 {
		return s, fmt.Errorf("hook %q: negative timeout, grace or backoff", s.Hook)
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Grace == 0 {
		s.Grace = DefaultGrace
	}
	if s.Backoff == 0 {
		s.Backoff = DefaultBackoff
	}
	if s.Policy == "" {
		s.Policy = Abort
	}
	if s.Fallback == "" {
		s.Fallback = Abort
	}
	if s.TempDir == "" {
		s.TempDir = "/tmp"
	}
	if !path.IsAbs(s.TempDir) {
		return s, fmt.Errorf("hook %q: temporary directory %q is not an absolute path", s.Hook, s.TempDir)
	}
	switch s.Policy {
	case Abort, Continue:
		s.Attempts = 1
	case Retry:
		if s.Attempts == 0 {
			s.Attempts = DefaultRetryAttempts
		}
		if s.Attempts < 1 || s.Attempts > MaxAttempts {
			return s, fmt.Errorf("hook %q: %d attempts: want 1 to %d", s.Hook, s.Attempts, MaxAttempts)
		}
	default:
		return s, fmt.Errorf("hook %q: failure policy %q: want abort, continue or retry", s.Hook, s.Policy)
	}
	if s.Fallback != Abort && s.Fallback != Continue {
		return s, fmt.Errorf("hook %q: retry fallback %q: want abort or continue", s.Hook, s.Fallback)
	}
	return s, nil
}

// backoff is the wait after failed attempt n (1-based).
func (s Spec) backoff(n int) time.Duration {
	d := s.Backoff
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}
