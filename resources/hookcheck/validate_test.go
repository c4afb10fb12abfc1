package hookcheck

import (
	"strings"
	"testing"
	"time"
)

func TestValidateAcceptsTemplatesWithDeclaredArgs(t *testing.T) {
	if err := canary().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRefuses(t *testing.T) {
	web := func(f func(*Spec)) Spec {
		s := Spec{Name: "h", Web: &Web{URL: "http://127.0.0.1/x"}}
		f(&s)
		return s
	}
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"no name", web(func(s *Spec) { s.Name = "" }), "name is empty"},
		{"no provider", web(func(s *Spec) { s.Web = nil }), `hook "h": no provider`},
		{"two providers", web(func(s *Spec) { s.Prometheus = &Prometheus{Address: "http://p", Query: "up"} }), "not both"},
		{"bad scheme", web(func(s *Spec) { s.Web.URL = "ftp://x/y" }), `web.url: scheme "ftp"`},
		{"bad method", web(func(s *Spec) { s.Web.Method = "get it" }), `web.method "get it"`},
		{"no host", web(func(s *Spec) { s.Web.URL = "http:///path" }), "web.url: no host"},
		{"bad json path", web(func(s *Spec) { s.Web.JSONPath = "{$.items[*]}" }), `json_path {$.items[*]}`},
		{"undeclared arg", web(func(s *Spec) { s.Web.URL = "http://{{ args.host }}/" }), `web.url: argument "host" is not declared in args`},
		{"bad condition", web(func(s *Spec) { s.SuccessCondition = "result <" }), `success_condition "result <"`},
		{"unknown function", web(func(s *Spec) { s.FailureCondition = "int(result) > 1" }), `failure_condition "int(result) > 1": unknown function "int"`},
		{"count without interval", web(func(s *Spec) { s.Count = 3 }), "count = 3 needs an interval"},
		{"open-ended without timeout", web(func(s *Spec) { s.Interval = time.Second }), "set a timeout"},
		{"negative count", web(func(s *Spec) { s.Count = -1 }), "count must not be negative"},
		{"negative limit", web(func(s *Spec) { s.FailureLimit = -1 }), "failure_limit must not be negative"},
		{"negative error limit", web(func(s *Spec) { s.ConsecutiveErrorLimit = new(-2) }), "consecutive_error_limit must not be negative"},
		{"unreachable failure limit", web(func(s *Spec) { s.Count, s.Interval, s.FailureLimit = 2, time.Second, 2 }), "failure_limit 2 can never be exceeded"},
		{"unreachable inconclusive limit", web(func(s *Spec) { s.InconclusiveLimit = 1 }), "inconclusive_limit 1 can never be exceeded"},
		{"timeout too short", web(func(s *Spec) { s.Count, s.Interval, s.Timeout = 3, time.Minute, 90*time.Second }), "timeout 1m30s is too short for 3 measurements"},
		{"prometheus without query", Spec{Name: "p", Prometheus: &Prometheus{Address: "http://127.0.0.1:9090"}}, "prometheus.query is empty"},
		{"prometheus bad address", Spec{Name: "p", Prometheus: &Prometheus{Address: "127.0.0.1:9090", Query: "up"}}, "prometheus.address"},
	}
	for _, c := range cases {
		err := c.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestValidateNeverEchoesCredentials(t *testing.T) {
	s := Spec{Name: "h", Web: &Web{URL: "ftp://user:hunter2@host/"}}
	if err := s.Validate(); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %v", err)
	}
}

func TestCountAndInterval(t *testing.T) {
	for _, c := range []struct {
		count    int
		interval time.Duration
		want     int
	}{{0, 0, 1}, {1, 0, 1}, {3, time.Second, 3}, {0, time.Second, 0}} {
		if got := (Spec{Count: c.count, Interval: c.interval}).effectiveCount(); got != c.want {
			t.Errorf("count %d interval %v: %d measurements, want %d", c.count, c.interval, got, c.want)
		}
	}
	if got := (Spec{}).consecutiveErrorLimit(); got != DefaultConsecutiveErrorLimit {
		t.Errorf("default consecutive error limit %d", got)
	}
	if got := (Spec{ConsecutiveErrorLimit: new(0)}).consecutiveErrorLimit(); got != 0 {
		t.Errorf("explicit 0 became %d", got)
	}
}
