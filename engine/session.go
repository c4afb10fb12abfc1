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

// NewSession opens a session reporting progress to o.Observer.
func NewSession(o Options) *Session {
	o.defaults()
	return &Session{rc: resources.NewRunContext(o.Log, o.Observer.Progress)}
}

// Stats returns the figures so far.
func (s *Session) Stats() Stats {
	st := s.rc.Pool.Stats()
	return Stats{Connections: st.Connections, Writes: st.Writes, BytesUploaded: st.BytesUploaded}
}

// Close closes every connection.
func (s *Session) Close() error { return s.rc.Close() }

// runContext returns the session's run context, or a new one the caller
// must close (close is a no-op for a shared session).
func (o Options) runContext() (*resources.RunContext, func()) {
	if o.Session != nil {
		return o.Session.rc, func() {}
	}
	rc := resources.NewRunContext(o.Log, o.Observer.Progress)
	return rc, func() { rc.Close() }
}
