package hookcheck

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A condition is an HCL expression over the variable `result` that yields
// true or false. bcs and Argo write them in govaluate/expr syntax; HCL's
// syntax matches for the common forms (`asInt(result) < 30`,
// `result == "ok" && len(result) > 0`, `!(x)`), except that strings take
// double quotes only and `==` never converts types (1 == "1" is false; the
// ordering operators do convert, so "45" < 50 is true).
type condition struct {
	attr string // success_condition or failure_condition, for messages
	src  string
	expr hclsyntax.Expression
}

// compileCondition parses src and checks that it refers only to `result`
// and to the functions eggo provides, so a typo fails at plan time.
func compileCondition(attr, src string) (*condition, error) {
	expr, diags := hclsyntax.ParseExpression([]byte(src), attr, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s %q: %s", attr, src, diagText(diags))
	}
	for _, tr := range expr.Variables() {
		if name := tr.RootName(); name != "result" {
			return nil, fmt.Errorf("%s %q: unknown variable %q: only result is defined", attr, src, name)
		}
	}
	var unknown []string
	hclsyntax.VisitAll(expr, func(n hclsyntax.Node) hcl.Diagnostics {
		if call, ok := n.(*hclsyntax.FunctionCallExpr); ok {
			if _, known := conditionFunctions[call.Name]; !known {
				unknown = append(unknown, call.Name)
			}
		}
		return nil
	})
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s %q: unknown function %q: the functions are asInt, asFloat and len", attr, src, unknown[0])
	}
	return &condition{attr: attr, src: src, expr: expr}, nil
}

// eval applies the condition to one measured value.
func (c *condition) eval(result cty.Value) (bool, error) {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"result": result},
		Functions: conditionFunctions,
	}
	v, diags := c.expr.Value(ctx)
	if diags.HasErrors() {
		return false, fmt.Errorf("%s: %s", c.attr, diagText(diags))
	}
	if v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.Bool) {
		return false, fmt.Errorf("%s %q: gave %s, want true or false", c.attr, c.src, describe(v))
	}
	return v.True(), nil
}

// diagText turns diagnostics into one line. A function's own error (such as
// `asInt("abc"): not an integer`) is shown as it is, without HCL's wrapping.
func diagText(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags.Errs() {
		var diag *hcl.Diagnostic
		if !errors.As(d, &diag) {
			parts = append(parts, d.Error())
			continue
		}
		if extra, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](diag); ok && extra.FunctionCallError() != nil {
			parts = append(parts, extra.FunctionCallError().Error())
			continue
		}
		text := diag.Summary
		if diag.Detail != "" {
			text += ": " + strings.TrimSuffix(diag.Detail, ".")
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}
