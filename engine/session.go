package engine

import "github.com/eggo-project/eggo/resources"

// Session is one command run's connections. A plan and the apply that
// follows it in the same run share one, so each host is connected to
// exactly once per run.
type Session struct{ rc *resources.RunContext }

// Stats are a session's transport figures.
type Stats struct {
	Connections   int64
	Writes        int64
	BytesUploaded int64
}

// NewSession opens a session; each run in it reports to its own
// Options.Observer.
func NewSession(o Options) *Session {
	o.Session = nil
	rc, _ := o.runContext(runSpec{})
	return &Session{rc: rc}
}

// Stats returns the figures so far.
func (s *Session) Stats() Stats {
	st := s.rc.Pool.Stats()
	return Stats{Connections: st.Connections, Writes: st.Writes, BytesUploaded: st.BytesUploaded}
}

// Close closes every connection.
func (s *Session) Close() error { return s.rc.Close() }
