package config

import (
	"fmt"
	"github.com/eggo-project/eggo/internal/text"
	"regexp"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// decoder evaluates the attributes of one block (or one instance of a
// block) into Go values, collecting diagnostics instead of stopping at the
// first one so a user sees every mistake of a block at once.
type decoder struct {
	ctx   *hcl.EvalContext
	diags hcl.Diagnostics
	// secret records attributes whose value derives from a sensitive
	// variable: their values must never be echoed in an error.
	secret map[*hcl.Attribute]bool
	// carriers are the attributes allowed to hold such a value (see
	// sensitive.go); any other refuses it at its line.
	carriers map[*hcl.Attribute]bool
	// required records the attributes a schema requires (or a block's
	// type requires, like a shell hook's source): null does not set them.
	required map[*hcl.Attribute]bool
	// validate is the loader's validate mode (VarInput.Validate): an
	// attribute whose value is not known is left unchecked, and its
	// range recorded in unknown, so checks that combine attributes can
	// skip it too (see partial.go).
	validate bool
	unknown  map[hcl.Range]bool
}

func newDecoder(ctx *hcl.EvalContext) *decoder {
	return &decoder{ctx: ctx}
}

// require marks the attributes of attrs that schema requires, so eval
// refuses null for them at their line: HCL checks that a required
// attribute is written, not that it evaluates to something. It returns
// attrs, for "attrs := dec.require(schema, content.Attributes)".
func (d *decoder) require(schema *hcl.BodySchema, attrs hcl.Attributes) hcl.Attributes {
	for _, as := range schema.Attributes {
		if as.Required {
			d.requireAttr(attrs[as.Name])
		}
	}
	return attrs
}

// requireAttr marks one attribute required; a is nil when absent.
func (d *decoder) requireAttr(a *hcl.Attribute) {
	if a == nil {
		return
	}
	if d.required == nil {
		d.required = map[*hcl.Attribute]bool{}
	}
	d.required[a] = true
}

// eval evaluates a and converts it to ty. ok is false when the attribute is
// absent, null, or wrong (then a diagnostic was recorded).
func (d *decoder) eval(a *hcl.Attribute, ty cty.Type) (cty.Value, bool) {
	if a == nil {
		return cty.NilVal, false
	}
	v, diags := a.Expr.Value(d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	marked, kind := v.ContainsMarked(), ""
	if marked {
		v, _ = v.UnmarkDeep()
	} else {
		kind = secretIn(v) // a credential given in clear is as sensitive
	}
	if marked || kind != "" {
		if !d.carriers[a] {
			if marked {
				d.refuseSensitive(a)
			} else {
				d.refuseSecret(a, kind)
			}
			return cty.NilVal, false
		}
		if d.secret == nil {
			d.secret = map[*hcl.Attribute]bool{}
		}
		d.secret[a] = true
	}
	if v.IsNull() {
		if d.required[a] {
			d.errorf(a.Expr.Range(), "Missing required argument",
				"The argument %q is required, and null does not set it: give it a value.", a.Name)
		}
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() && !d.validate {
		d.errorf(a.Expr.Range(), "Value not known", "The value of %q is not known while loading the configuration.", a.Name)
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     "Incorrect attribute value type",
			Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s.", a.Name, err),
			Subject:     a.Expr.Range().Ptr(),
			Expression:  a.Expr,
			EvalContext: d.ctx,
		})
		return cty.NilVal, false
	}
	if !cv.IsWhollyKnown() { // validate mode: its type was checked, its value cannot be
		d.markUnknown(a)
		return cty.NilVal, false
	}
	return cv, true
}

// show renders a user value for an error message, hiding sensitive ones.
func (d *decoder) show(a *hcl.Attribute, s string) string {
	if d.secret[a] {
		return "(sensitive value)"
	}
	return quoted(s)
}

func (d *decoder) errorf(rng hcl.Range, summary, format string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	})
}

func (d *decoder) str(attrs hcl.Attributes, name, def string) string {
	v, ok := d.eval(attrs[name], cty.String)
	if !ok {
		return def
	}
	return v.AsString()
}

// strPtr is str for override blocks, where "not set" differs from "".
func (d *decoder) strPtr(attrs hcl.Attributes, name string) *string {
	v, ok := d.eval(attrs[name], cty.String)
	if !ok {
		return nil
	}
	s := v.AsString()
	return &s
}

func (d *decoder) boolPtr(attrs hcl.Attributes, name string) *bool {
	v, ok := d.eval(attrs[name], cty.Bool)
	if !ok {
		return nil
	}
	b := v.True()
	return &b
}

// intPtr reads a whole number within [min, max].
func (d *decoder) intPtr(attrs hcl.Attributes, name string, min, max int) *int {
	a := attrs[name]
	v, ok := d.eval(a, cty.Number)
	if !ok {
		return nil
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != 0 || i < int64(min) || i > int64(max) {
		d.errorf(a.Expr.Range(), "Invalid "+name,
			"%s must be a whole number from %d to %d; got %s.", name, min, max, clip(bf.Text('g', -1)))
		return nil
	}
	n := int(i)
	return &n
}

// durationSyntax is what time.ParseDuration reads: a duration that has it
// and does not parse is too long.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// durationPtr reads a positive Go duration such as "8760h" or "30s".
func (d *decoder) durationPtr(attrs hcl.Attributes, name string) *time.Duration {
	a := attrs[name]
	s := d.strPtr(attrs, name)
	if s == nil {
		return nil
	}
	dur, err := time.ParseDuration(*s)
	if err != nil && durationSyntax.MatchString(*s) {
		d.errorf(a.Expr.Range(), "Invalid duration",
			"%s is longer than a duration can be (about 292 years, 2562047h); got %s.", name, d.show(a, *s))
		return nil
	}
	if err != nil || dur <= 0 {
		d.errorf(a.Expr.Range(), "Invalid duration",
			"%s must be a positive duration such as \"8760h\", \"30m\" or \"10s\" (units ns, us, ms, s, m, h); got %s.",
			name, d.show(a, *s))
		return nil
	}
	return &dur
}

// atLeast refuses a duration attribute that is set below min, the least
// that can work, saying why; v is its decoded value (0 after an error).
func (d *decoder) atLeast(attrs hcl.Attributes, name string, v, min time.Duration, why string) {
	a := attrs[name]
	if a == nil || v <= 0 || v >= min {
		return
	}
	d.errorf(a.Expr.Range(), "Invalid duration", "%s must be at least %s: %s; got %s.", name, text.Duration(min), why, text.Duration(v))
}

// atMost refuses a duration attribute that is set above max, the most
// that makes sense, saying why: a value like "87600000h" is a typo, and
// one past Go's limit of about 292 years does not parse at all.
func (d *decoder) atMost(attrs hcl.Attributes, name string, v, max time.Duration, why string) {
	a := attrs[name]
	if a == nil || v <= max {
		return
	}
	d.errorf(a.Expr.Range(), "Invalid duration", "%s must be at most %s: %s; got %s.", name, text.Duration(max), why, text.Duration(v))
}

func (d *decoder) duration(attrs hcl.Attributes, name string, def time.Duration) time.Duration {
	if p := d.durationPtr(attrs, name); p != nil {
		return *p
	}
	return def
}

// stringList reads a list of strings.
func (d *decoder) stringList(attrs hcl.Attributes, name string) ([]string, bool) {
	a := attrs[name]
	v, ok := d.eval(a, cty.List(cty.String))
	if !ok {
		return nil, false
	}
	out := make([]string, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if ev.IsNull() {
			d.errorf(elementRange(a.Expr, len(out), v.LengthInt()), "Invalid "+name, "The elements of %s must not be null.", name)
			return nil, false
		}
		out = append(out, ev.AsString())
	}
	return out, true
}

// elementRange returns the range of element i of a list expression of n
// elements when it is written as a literal list, else the whole
// expression's range. Only errors need it, so it is computed on demand.
func elementRange(expr hcl.Expression, i, n int) hcl.Range {
	exprs, diags := hcl.ExprList(expr)
	if diags.HasErrors() || len(exprs) != n {
		return expr.Range()
	}
	return exprs[i].Range()
}

func (d *decoder) stringMap(attrs hcl.Attributes, name string) map[string]string {
	v, ok := d.eval(attrs[name], cty.Map(cty.String))
	if !ok {
		return map[string]string{}
	}
	out := make(map[string]string, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		if ev.IsNull() {
			d.errorf(attrs[name].Expr.Range(), "Invalid "+name, "The value of %s[%s] must not be null.", name, quoted(k.AsString()))
			continue
		}
		out[k.AsString()] = ev.AsString()
	}
	return out
}
