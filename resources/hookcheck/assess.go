package hookcheck

import (
	"context"
	"fmt"
	"time"

	"github.com/eggo-project/eggo/internal/text"
)

// record counts a measurement and keeps the most recent ones.
func (r *Result) record(m Measurement, keep int) {
	switch m.Phase {
	case PhaseError:
		r.Errors++
		r.ConsecutiveErrors++
	case PhaseSuccessful:
		r.Successful++
	case PhaseFailed:
		r.Failed++
	case PhaseInconclusive:
		r.Inconclusive++
	}
	if m.Phase != PhaseError {
		r.Count++
		r.ConsecutiveErrors = 0
	}
	r.Measurements = append(r.Measurements, m)
	if over := len(r.Measurements) - keep; over > 0 {
		r.Measurements = append(r.Measurements[:0:0], r.Measurements[over:]...)
	}
}

// assess decides the hook's phase after a measurement, in Argo's order.
func (r *Result) assess(s Spec) (Phase, string) {
	last := r.Measurements[len(r.Measurements)-1]
	switch {
	case r.Failed > s.FailureLimit:
		return PhaseFailed, fmt.Sprintf("%d of %d measurements failed, more than failure_limit %d; last: %s",
			r.Failed, r.Count, s.FailureLimit, last.Message)
	case r.Inconclusive > s.InconclusiveLimit:
		return PhaseInconclusive, fmt.Sprintf("%d of %d measurements inconclusive, more than inconclusive_limit %d; last: %s",
			r.Inconclusive, r.Count, s.InconclusiveLimit, last.Message)
	case r.ConsecutiveErrors > s.consecutiveErrorLimit():
		return PhaseError, fmt.Sprintf("%s in a row, more than consecutive_error_limit %d; last: %s",
			text.Plural(r.ConsecutiveErrors, "error"), s.consecutiveErrorLimit(), last.Message)
	}
	if n := s.effectiveCount(); n > 0 && r.Count >= n {
		return PhaseSuccessful, r.summary()
	}
	return PhaseRunning, ""
}

func (r *Result) summary() string {
	return fmt.Sprintf("%s: %d successful, %d failed, %d inconclusive; %s",
		text.Plural(r.Count, "measurement"), r.Successful, r.Failed, r.Inconclusive, text.Plural(r.Errors, "error"))
}

// stopped ends a run that the deadline or the caller interrupted. A hook
// with an interval and no count normally ends here: after its timeout it is
// Successful if it completed a measurement and no limit was exceeded (Argo
// treats a terminated open-ended metric the same way).
func (r *Result) stopped(parent context.Context, s Spec) Result {
	switch {
	case parent.Err() != nil:
		return r.end(PhaseError, fmt.Sprintf("hook %q: interrupted (%v) after %s", s.Name, parent.Err(), r.summary()))
	case s.effectiveCount() == 0 && r.Count > 0:
		return r.end(PhaseSuccessful, fmt.Sprintf("hook %q: ran for its timeout %v, no limit exceeded; %s", s.Name, s.Timeout, r.summary()))
	case s.effectiveCount() == 0:
		return r.end(PhaseError, fmt.Sprintf("hook %q: no measurement completed within the timeout %v%s", s.Name, s.Timeout, r.lastError()))
	}
	return r.end(PhaseError, fmt.Sprintf("hook %q: timeout %v passed after %d of %d measurements%s",
		s.Name, s.Timeout, r.Count, s.effectiveCount(), r.lastError()))
}

func (r *Result) lastError() string {
	for i := len(r.Measurements) - 1; i >= 0; i-- {
		if m := r.Measurements[i]; m.Phase == PhaseError {
			return "; last error: " + m.Message
		}
	}
	return ""
}

func (r *Result) end(phase Phase, msg string) Result {
	r.Phase, r.Message, r.Finished = phase, msg, time.Now()
	return *r
}
