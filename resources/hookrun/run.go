package hookrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers"
)

// Decision is what the operation a hook wraps does next.
type Decision string

const (
	DecisionOK       Decision = "ok"       // the hook succeeded
	DecisionAbort    Decision = "abort"    // stop the operation
	DecisionContinue Decision = "continue" // the hook failed; go on, the failure recorded
)

// Outcome is the result of Run: every attempt, and the decision.
type Outcome struct {
	Attempts []Attempt
	Decision Decision
	// Err describes the last failure (hook, host, script, exit status or
	// signal, output tail) whenever the hook did not succeed, also when
	// the policy says continue; nil with DecisionOK.
	Err error
}

// errorTailBytes bounds the output quoted in Outcome.Err; the Attempt
// keeps more.
const errorTailBytes = 2048

// Run runs spec's hook on host over conn and applies its failure policy.
// It never retries endlessly: at most spec.Attempts attempts, waits
// doubling from spec.Backoff. A cancelled ctx ends the run (the scripts on
// the host get TERM, then KILL after the grace) with DecisionAbort.
func Run(ctx context.Context, conn providers.Conn, host string, spec Spec) Outcome {
	spec, err := spec.withDefaults()
	if err != nil {
		return Outcome{Decision: DecisionAbort, Err: fmt.Errorf("%s: %w", host, err)}
	}
	r := &runner{conn: conn, host: host, spec: spec}
	var out Outcome
	for n := 1; ; n++ {
		a := r.attempt(ctx, n)
		out.Attempts = append(out.Attempts, a)
		if a.Err == nil {
			// Earlier failed attempts stay in Attempts; the hook succeeded.
			out.Decision, out.Err = DecisionOK, nil
			return out
		}
		out.Err = r.describe(a)
		if ctx.Err() != nil {
			out.Decision = DecisionAbort
			return out
		}
		if spec.Policy != Retry || n >= spec.Attempts {
			break
		}
		t := time.NewTimer(spec.backoff(n))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			out.Decision = DecisionAbort
			out.Err = fmt.Errorf("%w; retry cancelled: %w", out.Err, ctx.Err())
			return out
		}
	}
	final := spec.Policy
	if final == Retry {
		final = spec.Fallback
	}
	if final == Continue {
		out.Decision = DecisionContinue
	} else {
		out.Decision = DecisionAbort
	}
	return out
}

// describe is the error for a failed attempt: hook, host, what failed,
// which attempt, and the end of the output.
func (r *runner) describe(a Attempt) error {
	msg := fmt.Sprintf("hook %q on %s: %v", r.spec.Hook, r.host, a.Err)
	if r.spec.Attempts > 1 {
		msg += fmt.Sprintf(" (attempt %d of %d)", a.N, r.spec.Attempts)
	}
	if tail := errorTail(a.Output); tail != "" {
		msg += "; output ends:\n" + tail
	}
	return &hookError{msg: msg, err: a.Err}
}

// errorTail is the last errorTailBytes of output, cut at a line start.
func errorTail(out string) string {
	if len(out) <= errorTailBytes {
		return out
	}
	out = out[len(out)-errorTailBytes:]
	if i := strings.IndexByte(out, '\n'); i >= 0 && i < len(out)-1 {
		out = out[i+1:]
	}
	return "…\n" + out
}

type hookError struct {
	msg string
	err error
}

func (e *hookError) Error() string { return e.msg }
func (e *hookError) Unwrap() error { return e.err }
