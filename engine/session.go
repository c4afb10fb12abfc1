package engine

import "github.com/eggo-project/eggo/resources"

// Session is one command run's connections. A plan and the apply that
// follows it in the same run share one, so each host is connected to
// exactly once per run.
type Session struct{ rc *resources.RunContext }

// NewSession opens a session; each run in it reports to its own
// Options.Observer.
func NewSession(o Options) *Session {
	o.Session = nil
	rc, _ := o.runContext(runSpec{})
	return &Session{rc: rc}
}

// Close closes every connection.
func (s *Session) Close() error { return s.rc.Close() }
