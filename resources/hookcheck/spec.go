package hookcheck

import "time"

// DefaultConsecutiveErrorLimit is Argo Rollouts' default: a hook turns Error
// only after five errors in a row, so a Prometheus restart does not fail it.
const DefaultConsecutiveErrorLimit = 4

// DefaultRequestTimeout bounds one HTTP request when a provider sets none.
const DefaultRequestTimeout = 10 * time.Second

// Spec is one check hook: a provider, a schedule, conditions and limits.
type Spec struct {
	// Name is the hook's name; every error and message names it.
	Name string

	// Exactly one provider is set.
	Web        *Web
	Prometheus *Prometheus

	// Args are the arguments `{{ args.NAME }}` may refer to, with their
	// default values; an empty value declares an argument without a default.
	Args map[string]string

	// Count is how many measurements (not counting errors) complete the
	// hook. Neither Count nor Interval: exactly one measurement. Interval
	// without Count: measure until a limit ends the hook or Timeout passes.
	Count        int
	Interval     time.Duration
	InitialDelay time.Duration
	// Timeout bounds the whole run; mandatory when Interval has no Count.
	Timeout time.Duration

	// Conditions are HCL expressions over `result` (see condition.go).
	SuccessCondition string
	FailureCondition string

	// Limits: the hook ends with that phase once the number exceeds the limit.
	FailureLimit      int
	InconclusiveLimit int
	// ConsecutiveErrorLimit is nil for DefaultConsecutiveErrorLimit; 0 is a
	// real limit (the first error ends the hook).
	ConsecutiveErrorLimit *int
}

// Web measures an HTTP endpoint; the value is the JSON the path selects.
type Web struct {
	URL    string
	Method string // GET when empty
	// Headers are sent with the request; their values never appear in a
	// message because they often carry tokens.
	Headers  map[string]string
	Body     string
	JSONPath string        // e.g. {$.a.b}; empty: the whole body
	Timeout  time.Duration // per request; DefaultRequestTimeout when zero
}

// Prometheus measures an instant query against a Prometheus server.
type Prometheus struct {
	Address string // e.g. http://127.0.0.1:9090
	Query   string
	Timeout time.Duration // per request; DefaultRequestTimeout when zero
}

// consecutiveErrorLimit applies the default.
func (s Spec) consecutiveErrorLimit() int {
	if s.ConsecutiveErrorLimit == nil {
		return DefaultConsecutiveErrorLimit
	}
	return *s.ConsecutiveErrorLimit
}

// effectiveCount is the number of completed measurements that ends the
// hook; 0 means it runs until a limit or its Timeout ends it.
func (s Spec) effectiveCount() int {
	switch {
	case s.Count > 0:
		return s.Count
	case s.Interval > 0:
		return 0
	default:
		return 1
	}
}
