package hookcheck

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"time"
)

// compiled is a Spec checked and parsed once, ready to measure.
type compiled struct {
	spec             Spec
	success, failure *condition
	jsonPath         *jsonPath
}

// Validate is the plan-time check: a provider is set and well formed, every
// template refers to a declared argument, conditions parse and use only
// `result`, asInt, asFloat and len, and the schedule and limits make sense.
func (s Spec) Validate() error {
	// Templates become a placeholder so the URL and path can be parsed.
	probe := s.clone()
	err := eachTemplated(&probe, func(field, text string) (string, error) {
		return expand(s, field, text, func(name string) (string, bool) {
			_, declared := s.Args[name]
			return "placeholder", declared
		})
	})
	if err != nil {
		return errors.New(replaceNoValue(err.Error()))
	}
	_, err = probe.compile()
	return err
}

// replaceNoValue rewords the render error for plan time, where arguments
// need only be declared.
func replaceNoValue(msg string) string {
	return noValue.ReplaceAllString(msg, "argument $1 is not declared in args")
}

var httpMethod = regexp.MustCompile(`^[A-Z]+$`)

var noValue = regexp.MustCompile(`argument ("[^"]*") has no value \(give it in args\)`)

// compile checks a Spec whose templates are already expanded.
func (s Spec) compile() (*compiled, error) {
	if s.Name == "" {
		return nil, errors.New("check hook: name is empty")
	}
	c := &compiled{spec: s}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("hook %q: %s", s.Name, fmt.Sprintf(format, a...))
	}
	if err := eachTemplated(&c.spec, func(field, text string) (string, error) {
		if m := anyTemplate.FindString(text); m != "" {
			return "", fail("%s: template %s is not rendered (call Render first)", field, m)
		}
		return text, nil
	}); err != nil {
		return nil, err
	}

	switch {
	case s.Web != nil && s.Prometheus != nil:
		return nil, fail("set one provider, web or prometheus, not both")
	case s.Web != nil:
		if err := checkURL(s.Web.URL); err != nil {
			return nil, fail("web.url: %v", err)
		}
		if m := s.Web.Method; m != "" && !httpMethod.MatchString(m) {
			return nil, fail("web.method %q: want an HTTP method such as GET or POST", m)
		}
		if s.Web.JSONPath != "" {
			jp, err := parseJSONPath(s.Web.JSONPath)
			if err != nil {
				return nil, fail("%v", err)
			}
			c.jsonPath = jp
		}
		if s.Web.Timeout < 0 {
			return nil, fail("web.timeout must not be negative")
		}
	case s.Prometheus != nil:
		if err := checkURL(s.Prometheus.Address); err != nil {
			return nil, fail("prometheus.address: %v", err)
		}
		if s.Prometheus.Query == "" {
			return nil, fail("prometheus.query is empty")
		}
		if s.Prometheus.Timeout < 0 {
			return nil, fail("prometheus.timeout must not be negative")
		}
	default:
		return nil, fail("no provider: set web or prometheus")
	}

	var err error
	if s.SuccessCondition != "" {
		if c.success, err = compileCondition("success_condition", s.SuccessCondition); err != nil {
			return nil, fail("%v", err)
		}
	}
	if s.FailureCondition != "" {
		if c.failure, err = compileCondition("failure_condition", s.FailureCondition); err != nil {
			return nil, fail("%v", err)
		}
	}
	if err := s.checkSchedule(); err != nil {
		return nil, fail("%v", err)
	}
	return c, nil
}

// checkSchedule applies Argo's rules for count and interval, and eggo's:
// a hook that could run forever needs a timeout.
func (s Spec) checkSchedule() error {
	for name, d := range map[string]time.Duration{"interval": s.Interval, "initial_delay": s.InitialDelay, "timeout": s.Timeout} {
		if d < 0 {
			return fmt.Errorf("%s must not be negative", name)
		}
	}
	for name, n := range map[string]int{"count": s.Count, "failure_limit": s.FailureLimit, "inconclusive_limit": s.InconclusiveLimit, "consecutive_error_limit": s.consecutiveErrorLimit()} {
		if n < 0 {
			return fmt.Errorf("%s must not be negative", name)
		}
	}
	n := s.effectiveCount()
	switch {
	case s.Count > 1 && s.Interval == 0:
		return fmt.Errorf("count = %d needs an interval between the measurements", s.Count)
	case s.Count == 0 && s.Interval > 0 && s.Timeout == 0:
		return fmt.Errorf("interval without count measures until a limit ends the hook: set a timeout to bound it")
	case n > 0 && n <= s.FailureLimit:
		return fmt.Errorf("failure_limit %d can never be exceeded by %d measurements", s.FailureLimit, n)
	case n > 0 && n <= s.InconclusiveLimit:
		return fmt.Errorf("inconclusive_limit %d can never be exceeded by %d measurements", s.InconclusiveLimit, n)
	}
	if s.Timeout > 0 && n > 0 {
		need := s.InitialDelay + time.Duration(n-1)*s.Interval
		if need >= s.Timeout {
			return fmt.Errorf("timeout %v is too short for %d measurements (initial_delay + (count-1) × interval = %v)", s.Timeout, n, need)
		}
	}
	return nil
}

// checkURL wants an absolute http or https URL; it never echoes the URL,
// which may carry credentials.
func checkURL(raw string) error {
	if raw == "" {
		return errors.New("empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	return nil
}
