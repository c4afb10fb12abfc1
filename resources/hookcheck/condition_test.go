package hookcheck

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func mustJSON(t *testing.T, doc string) cty.Value {
	t.Helper()
	v, err := fromJSON([]byte(doc))
	if err != nil {
		t.Fatalf("fromJSON(%s): %v", doc, err)
	}
	return v
}

func TestConditionEvaluates(t *testing.T) {
	cases := []struct {
		cond, result string // result is JSON
		want         bool
	}{
		{`asInt(result) < 30`, `"29"`, true},
		{`asInt(result) < 30`, `45`, false},
		{`asFloat(result) >= 0.95`, `"0.97"`, true},
		{`asFloat(result) >= 0.95`, `0.5`, false},
		{`result == "ok"`, `"ok"`, true},
		{`result == "ok"`, `"OK"`, false},
		{`result == 1`, `"1"`, false}, // == does not convert types
		{`result < 50`, `"45"`, true}, // ordering operators do
		{`result.status == "up" && len(result.items) == 2`, `{"status":"up","items":[1,2]}`, true},
		{`result.status == "up" || result.ready`, `{"status":"down","ready":true}`, true},
		{`!(result.ready)`, `{"ready":true}`, false},
		{`len(result) == 3`, `"abc"`, true},
		{`len(result) > 0`, `{}`, false},
		{`result`, `true`, true},
	}
	for _, c := range cases {
		cond, err := compileCondition("success_condition", c.cond)
		if err != nil {
			t.Fatalf("%s: %v", c.cond, err)
		}
		got, err := cond.eval(mustJSON(t, c.result))
		if err != nil || got != c.want {
			t.Errorf("%s with result=%s: got %v, %v; want %v", c.cond, c.result, got, err, c.want)
		}
	}
}

func TestConditionErrors(t *testing.T) {
	cases := []struct {
		cond, result, want string
	}{
		{`asInt(result) < 30`, `"abc"`, `success_condition: asInt("abc"): not an integer`},
		{`asInt(result) < 30`, `4.5`, `asInt(4.5): not an integer`},
		{`asInt(result) < 30`, `null`, `asInt(null): not an integer`},
		{`asFloat(result) > 1`, `"NaN"`, `asFloat("NaN"): not a number`},
		{`asFloat(result) > 1`, `[1]`, `asFloat([1]): not a number`},
		{`len(result) > 1`, `3`, `len(3): not a string, list or object`},
		{`result.missing == 1`, `{"a":1}`, `Unsupported attribute`},
		{`asInt(result)`, `"3"`, `gave 3, want true or false`},
	}
	for _, c := range cases {
		cond, err := compileCondition("success_condition", c.cond)
		if err != nil {
			t.Fatalf("%s: %v", c.cond, err)
		}
		_, err = cond.eval(mustJSON(t, c.result))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with result=%s: error %v, want it to contain %q", c.cond, c.result, err, c.want)
		}
	}
}

func TestConditionCompileErrors(t *testing.T) {
	cases := map[string]string{
		`asInt(result) <`:       `success_condition "asInt(result) <"`,
		`result == 'ok'`:        `success_condition "result == 'ok'"`, // single quotes are not HCL
		`value > 3`:             `unknown variable "value": only result is defined`,
		`asNumber(result) > 3`:  `unknown function "asNumber"`,
		`len(upper(result)) >1`: `unknown function "upper"`,
	}
	for src, want := range cases {
		_, err := compileCondition("success_condition", src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", src, err, want)
		}
	}
}

func TestJudgeFollowsArgo(t *testing.T) {
	compile := func(success, failure string) *compiled {
		s := Spec{Name: "h", Web: &Web{URL: "http://x"}, SuccessCondition: success, FailureCondition: failure}
		c, err := s.compile()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		success, failure string
		result           int64
		want             Phase
	}{
		{"", "", 1, PhaseSuccessful},
		{"result < 10", "", 5, PhaseSuccessful},
		{"result < 10", "", 50, PhaseFailed}, // only success: its opposite fails
		{"", "result > 10", 50, PhaseFailed},
		{"", "result > 10", 5, PhaseSuccessful}, // only failure: its opposite succeeds
		{"result < 10", "result > 100", 50, PhaseInconclusive},
		{"result > 1", "result > 2", 5, PhaseFailed}, // both true: failure wins
	}
	for _, c := range cases {
		got, msg := compile(c.success, c.failure).judge(cty.NumberIntVal(c.result))
		if got != c.want {
			t.Errorf("success %q failure %q result %d: %s (%s), want %s", c.success, c.failure, c.result, got, msg, c.want)
		}
	}
}
