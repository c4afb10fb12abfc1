package config

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookcheck"
)

// maxHookTime bounds a hook's durations (a script's timeout, a check's
// interval, initial_delay and timeout): a hook holds up its operation.
const maxHookTime = 24 * time.Hour

// maxRequestTime bounds the timeout of one request of a check.
const maxRequestTime = time.Hour

// maxMeasurements bounds count and the limits: a typo of 1e6 should be an
// error, not a hook that measures for days.
const maxMeasurements = 10000

// decodeCheckHook reads a web or prometheus hook into a hookcheck.Spec and
// runs hookcheck's own plan-time checks, part by part, so each error points
// at the attribute it is about.
func decodeCheckHook(dec *decoder, hb *hookBlock, t hook.Type) *hookcheck.Spec {
	attrs := hb.content.Attributes
	s := &hookcheck.Spec{Name: hb.block.Labels[0]}
	before, unknownBefore := len(dec.diags), len(dec.unknown)
	var provider hcl.Attributes // the provider block's attributes, to point at
	var block *hcl.Block
	switch {
	case t == hook.TypeWeb && hb.web != nil:
		block = hb.web
		s.Web, provider = decodeWeb(dec, hb.web)
	case t == hook.TypePrometheus && hb.prom != nil:
		block = hb.prom
		s.Prometheus, provider = decodePrometheus(dec, hb.prom)
	}
	s.Args = dec.stringMap(attrs, "args")
	checkArgTemplates(dec, attrs["args"], s.Args)
	if n := dec.intPtr(attrs, "count", 1, maxMeasurements); n != nil {
		s.Count = *n
	}
	s.Interval = dec.duration(attrs, "interval", 0)
	s.InitialDelay = dec.duration(attrs, "initial_delay", 0)
	s.Timeout = dec.duration(attrs, "timeout", 0)
	dec.atLeast(attrs, "interval", s.Interval, time.Millisecond, "a measurement takes longer than that")
	dec.atLeast(attrs, "timeout", s.Timeout, time.Millisecond, "a measurement takes longer than that")
	const long = "a check that measures longer holds up its operation for more than a day"
	dec.atMost(attrs, "interval", s.Interval, maxHookTime, long)
	dec.atMost(attrs, "initial_delay", s.InitialDelay, maxHookTime, long)
	dec.atMost(attrs, "timeout", s.Timeout, maxHookTime, long)
	s.SuccessCondition = dec.str(attrs, "success_condition", "")
	s.FailureCondition = dec.str(attrs, "failure_condition", "")
	if n := dec.intPtr(attrs, "failure_limit", 0, maxMeasurements); n != nil {
		s.FailureLimit = *n
	}
	if n := dec.intPtr(attrs, "inconclusive_limit", 0, maxMeasurements); n != nil {
		s.InconclusiveLimit = *n
	}
	s.ConsecutiveErrorLimit = dec.intPtr(attrs, "consecutive_error_limit", 0, maxMeasurements)
	if dec.diags[before:].HasErrors() || block == nil {
		return s // hookcheck would only repeat these
	}
	if len(dec.unknown) > unknownBefore {
		return s // validate mode: hookcheck would check stand-ins for what is not known
	}
	validateCheck(dec, hb, s, block, provider)
	return s
}

func decodeWeb(dec *decoder, b *hcl.Block) (*hookcheck.Web, hcl.Attributes) {
	content, diags := b.Body.Content(hookWebSchema)
	dec.diags = append(dec.diags, diags...)
	a := dec.require(hookWebSchema, content.Attributes)
	w := &hookcheck.Web{
		URL:      dec.str(a, "url", ""),
		Method:   dec.str(a, "method", ""),
		Body:     dec.str(a, "body", ""),
		JSONPath: dec.str(a, "json_path", ""),
		Timeout:  dec.duration(a, "timeout", 0),
	}
	dec.atLeast(a, "timeout", w.Timeout, time.Millisecond, "a request takes longer than that")
	dec.atMost(a, "timeout", w.Timeout, maxRequestTime, "a server that has not answered in an hour will not")
	if a["headers"] != nil {
		dec.allowSensitive(a["headers"]) // sensitive.go: headers are the web check's secret carrier
		w.Headers = dec.stringMap(a, "headers")
	}
	return w, a
}

func decodePrometheus(dec *decoder, b *hcl.Block) (*hookcheck.Prometheus, hcl.Attributes) {
	content, diags := b.Body.Content(hookPrometheusSchema)
	dec.diags = append(dec.diags, diags...)
	a := dec.require(hookPrometheusSchema, content.Attributes)
	p := &hookcheck.Prometheus{
		Address: dec.str(a, "address", ""),
		Query:   dec.str(a, "query", ""),
		Timeout: dec.duration(a, "timeout", 0),
	}
	dec.atLeast(a, "timeout", p.Timeout, time.Millisecond, "a query takes longer than that")
	dec.atMost(a, "timeout", p.Timeout, maxRequestTime, "a server that has not answered in an hour will not")
	return p, a
}

// checkArgTemplates: an argument's value may take the node's or cluster's
// values of each run (hook.ArgVars), nothing else.
func checkArgTemplates(dec *decoder, a *hcl.Attribute, args map[string]string) {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, m := range hook.ArgTemplate.FindAllStringSubmatch(args[k], -1) {
			if !slices.Contains(hook.ArgVars, m[1]) {
				dec.errorf(a.Expr.Range(), "Unresolved hook argument",
					"args[%s] holds %s, which eggo cannot fill in. An argument's value may use {{ %s }}.",
					quoted(k), clip(m[0]), strings.Join(hook.ArgVars, " }}, {{ "))
			}
		}
	}
}

// placeholderWeb stands in for the provider while a condition or the
// schedule is checked on its own.
var placeholderWeb = &hookcheck.Web{URL: "http://placeholder.invalid/"}

// validateCheck runs hookcheck's Validate on three parts of the spec: the
// provider with its templates, each condition, and the schedule with its
// limits. hookcheck's messages name the hook and the field.
func validateCheck(dec *decoder, hb *hookBlock, s *hookcheck.Spec, block *hcl.Block, provider hcl.Attributes) {
	attrs := hb.content.Attributes
	base := hookcheck.Spec{Name: s.Name, Args: s.Args, Web: placeholderWeb}

	probe := base
	probe.Web, probe.Prometheus = s.Web, s.Prometheus
	if err := probe.Validate(); err != nil {
		msg := err.Error()
		summary := "Invalid " + block.Type + " check"
		if strings.Contains(msg, "not declared in args") || strings.Contains(msg, "unsupported template") {
			summary = "Unresolved hook argument"
		}
		rng := fieldRange(msg, block.Type, provider, block.DefRange)
		dec.errorf(rng, summary, "%s.", msg)
	}
	for _, c := range []struct{ name, src string }{{"success_condition", s.SuccessCondition}, {"failure_condition", s.FailureCondition}} {
		if c.src == "" {
			continue
		}
		if err := nestingError(c.name, []byte(c.src), false); err != nil {
			dec.errorf(attrs[c.name].Expr.Range(), "Nesting too deep", "%s.", err)
			continue
		}
		probe := base
		if c.name == "success_condition" {
			probe.SuccessCondition = c.src
		} else {
			probe.FailureCondition = c.src
		}
		if err := probe.Validate(); err != nil {
			// hookcheck quotes the whole condition: show its start only.
			msg := strings.ReplaceAll(err.Error(), strconv.Quote(c.src), quoted(c.src))
			dec.errorf(attrs[c.name].Expr.Range(), "Invalid condition",
				"%s. A condition is an HCL expression over result, with asInt, asFloat and len, like \"asInt(result) >= 1\".", msg)
		}
	}
	probe = *s
	probe.Web, probe.Prometheus, probe.SuccessCondition, probe.FailureCondition = placeholderWeb, nil, "", ""
	if err := probe.Validate(); err != nil {
		rng := fieldRange(err.Error(), "", attrs, hb.block.DefRange)
		dec.errorf(rng, "Invalid check schedule", "%s.", err)
	}
}

// fieldRange finds the attribute a hookcheck message is about: the
// longest attribute name it mentions (json_path before path), else def.
func fieldRange(msg, prefix string, attrs hcl.Attributes, def hcl.Range) hcl.Range {
	best := ""
	for name := range attrs {
		if (strings.Contains(msg, name) || (prefix != "" && strings.Contains(msg, prefix+"."+name))) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return def
	}
	return attrs[best].Expr.Range()
}
