package hookcheck

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// DefaultErrorRetryInterval is Argo's wait before measuring again after an
// error; an Interval shorter than it wins.
const DefaultErrorRetryInterval = 10 * time.Second

// DefaultKeepMeasurements is how many measurements a Result keeps (Argo's
// default measurement retention).
const DefaultKeepMeasurements = 10

// Options tune Run; the zero value is ready to use.
type Options struct {
	Client             *http.Client // nil: a plain client; each request has its own timeout
	ErrorRetryInterval time.Duration
	KeepMeasurements   int
	// OnMeasurement, when set, sees every measurement as it finishes (for
	// progress output); it must not block for long.
	OnMeasurement func(Measurement)
}

// Run measures s until its count is reached, a limit is exceeded, its
// timeout passes or ctx ends. s must be rendered (see Render). The phases
// follow Argo Rollouts: more failed measurements than FailureLimit →
// Failed; more inconclusive than InconclusiveLimit → Inconclusive; more
// errors in a row than ConsecutiveErrorLimit → Error; the count reached
// with none of those → Successful. Errors do not count towards Count.
func Run(ctx context.Context, s Spec, opts Options) Result {
	r := &Result{Phase: PhaseRunning, Started: time.Now()}
	c, err := s.compile()
	if err != nil {
		return r.end(PhaseError, err.Error())
	}
	opts = opts.withDefaults(s)

	runCtx := ctx
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	if !sleep(runCtx, s.InitialDelay) {
		return r.stopped(ctx, s)
	}
	for {
		m := c.measure(runCtx, opts.Client)
		if runCtx.Err() != nil {
			// Cut short by the run's own end: it says nothing about the target.
			return r.stopped(ctx, s)
		}
		r.record(m, opts.KeepMeasurements)
		if opts.OnMeasurement != nil {
			opts.OnMeasurement(m)
		}
		if phase, msg := r.assess(s); phase != PhaseRunning {
			return r.end(phase, fmt.Sprintf("hook %q: %s", s.Name, msg))
		}
		wait := s.Interval
		if m.Phase == PhaseError {
			wait = opts.ErrorRetryInterval
		}
		if !sleep(runCtx, wait) {
			return r.stopped(ctx, s)
		}
	}
}

func (o Options) withDefaults(s Spec) Options {
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.ErrorRetryInterval <= 0 {
		o.ErrorRetryInterval = DefaultErrorRetryInterval
		if s.Interval > 0 && s.Interval < o.ErrorRetryInterval {
			o.ErrorRetryInterval = s.Interval
		}
	}
	if o.KeepMeasurements <= 0 {
		o.KeepMeasurements = DefaultKeepMeasurements
	}
	return o
}

// measure calls the provider once and judges the value.
func (c *compiled) measure(ctx context.Context, client *http.Client) Measurement {
	m := Measurement{Start: time.Now()}
	var v cty.Value
	var err error
	if c.spec.Web != nil {
		v, err = measureWeb(ctx, client, c.spec.Web, c.jsonPath)
	} else {
		v, err = measurePrometheus(ctx, client, c.spec.Prometheus)
	}
	if err != nil {
		m.Phase, m.Message = PhaseError, err.Error()
	} else {
		m.Value = display(v)
		m.Phase, m.Message = c.judge(v)
	}
	m.Finish = time.Now()
	return m
}

// judge applies the conditions as Argo does: without conditions every value
// succeeds; with only one, its opposite decides the other; failure wins
// when both hold; neither true is Inconclusive.
func (c *compiled) judge(v cty.Value) (Phase, string) {
	var ok, bad bool
	var err error
	if c.success != nil {
		if ok, err = c.success.eval(v); err != nil {
			return PhaseError, err.Error()
		}
	}
	if c.failure != nil {
		if bad, err = c.failure.eval(v); err != nil {
			return PhaseError, err.Error()
		}
	}
	switch {
	case c.success == nil && c.failure == nil:
		return PhaseSuccessful, ""
	case c.failure == nil:
		bad = !ok
	case c.success == nil:
		ok = !bad
	}
	switch {
	case bad && c.failure != nil:
		return PhaseFailed, fmt.Sprintf("failure_condition %q is true for %s", c.failure.src, describe(v))
	case bad:
		return PhaseFailed, fmt.Sprintf("success_condition %q is false for %s", c.success.src, describe(v))
	case !ok:
		return PhaseInconclusive, fmt.Sprintf("neither success_condition nor failure_condition is true for %s", describe(v))
	}
	return PhaseSuccessful, ""
}

// sleep waits d or until ctx ends; it reports whether the run goes on.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
