package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// tryFunc is HCL's try (ext/tryfunc) evaluating its arguments once. HCL's
// evaluates them once for the result's type and again for its value, so
// try(try(try(…))) n deep took 2^n evaluations: 30 deep ran for minutes.
// Its result's type is not known before the call, which try's own was
// only when its arguments were known anyway.
var tryFunc = function.New(&function.Spec{
	Description: "Returns the value of the first expression that evaluates without an error.",
	VarParam:    &function.Parameter{Name: "expressions", Type: customdecode.ExpressionClosureType},
	Type:        function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if len(args) == 0 {
			return cty.NilVal, errors.New("at least one argument is required")
		}
		var diags hcl.Diagnostics
		for _, arg := range args {
			v, d := customdecode.ExpressionClosureFromVal(arg).Value()
			diags = append(diags, d...)
			switch {
			case d.HasErrors(): // a more refined value would not remove the error
			case !v.IsWhollyKnown():
				return cty.DynamicVal, nil // which one succeeds may change once it is known
			default:
				return v, nil
			}
		}
		var b strings.Builder
		b.WriteString("no expression succeeded:\n")
		for _, d := range diags {
			if d.Subject != nil {
				fmt.Fprintf(&b, "- %s (at %s)\n  %s\n", d.Summary, d.Subject, d.Detail)
			} else {
				fmt.Fprintf(&b, "- %s\n  %s\n", d.Summary, d.Detail)
			}
		}
		b.WriteString("\nAt least one expression must produce a successful result")
		return cty.NilVal, errors.New(b.String())
	},
})
