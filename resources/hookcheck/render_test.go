package hookcheck

import (
	"strings"
	"testing"
	"time"
)

func canary() Spec {
	return Spec{
		Name: "canary",
		Web: &Web{
			URL:      "http://{{ args.svc }}:9091/stats?pod={{args.pod}}",
			Headers:  map[string]string{"Authorization": "Bearer {{ args.token }}"},
			JSONPath: `{$.pods["{{ args.pod }}"].age}`,
		},
		Args:             map[string]string{"svc": "canary.default.svc", "pod": "", "token": ""},
		Count:            2,
		Interval:         time.Minute,
		SuccessCondition: "asInt(result) < 30",
	}
}

func TestRenderFillsArguments(t *testing.T) {
	s := canary()
	out, err := Render(s, map[string]string{"pod": "p-1", "token": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://canary.default.svc:9091/stats?pod=p-1"; out.Web.URL != want {
		t.Errorf("url %q, want %q", out.Web.URL, want)
	}
	if got := out.Web.Headers["Authorization"]; got != "Bearer s3cret" {
		t.Errorf("header %q", got)
	}
	if want := `{$.pods["p-1"].age}`; out.Web.JSONPath != want {
		t.Errorf("json_path %q, want %q", out.Web.JSONPath, want)
	}
	// A given value wins over the default.
	out, err = Render(s, map[string]string{"svc": "other", "pod": "p", "token": "t"})
	if err != nil || !strings.HasPrefix(out.Web.URL, "http://other:9091/") {
		t.Errorf("override: %q, %v", out.Web.URL, err)
	}
	// The caller's Spec is untouched.
	if s.Web.URL != canary().Web.URL || s.Web.Headers["Authorization"] != "Bearer {{ args.token }}" {
		t.Errorf("Render changed its input: %+v %v", s.Web, s.Web.Headers)
	}
	if _, err := out.compile(); err != nil {
		t.Errorf("a rendered spec should compile: %v", err)
	}
}

func TestRenderPrometheusQuery(t *testing.T) {
	s := Spec{Name: "rate", Prometheus: &Prometheus{Address: "http://{{ args.prom }}", Query: `sum(up{job="{{ args.job }}"})`},
		Args: map[string]string{"prom": "127.0.0.1:9090", "job": "node"}}
	out, err := Render(s, nil)
	if err != nil || out.Prometheus.Query != `sum(up{job="node"})` || out.Prometheus.Address != "http://127.0.0.1:9090" {
		t.Errorf("got %+v, %v", out.Prometheus, err)
	}
}

func TestRenderMissingArgument(t *testing.T) {
	_, err := Render(canary(), map[string]string{"token": "s3cret"})
	want := `hook "canary": web.url: argument "pod" has no value`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	_, err = Render(canary(), map[string]string{"pod": "p"})
	want = `hook "canary": web.headers["Authorization"]: argument "token" has no value`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	if strings.Contains(err.Error(), "Bearer") {
		t.Errorf("a header value leaked into %v", err)
	}
}

func TestRenderRefusesOtherTemplates(t *testing.T) {
	s := canary()
	s.Web.URL = "http://{{ .Values.host }}/"
	_, err := Render(s, map[string]string{"pod": "p", "token": "t"})
	if err == nil || !strings.Contains(err.Error(), "unsupported template {{ .Values.host }}") {
		t.Errorf("error %v", err)
	}
}
