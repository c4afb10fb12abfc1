package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// sensitive marks values of sensitive variables (and everything computed
// from them: cty carries marks through functions and templates), so they
// can be kept out of error messages and outputs.
type sensitiveMark struct{}

var sensitive = sensitiveMark{}

// variable is one variable block.
type variable struct {
	name        string
	block       *hcl.Block
	typ         cty.Type // DynamicPseudoType when no type is given
	defaults    *typeexpr.Defaults
	typed       bool
	def         cty.Value // cty.NilVal when there is no default
	description string
	sensitive   bool
	value       cty.Value // resolved; marked when sensitive
}

func (l *loader) declareVariable(b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	var diags hcl.Diagnostics
	if !hclsyntax.ValidIdentifier(name) {
		return append(diags, invalidName(b, "variable"))
	}
	if prev, ok := l.varByName[name]; ok {
		return append(diags, duplicateBlock(b, "variable", prev.block))
	}
	content, diags := b.Body.Content(variableSchema)
	v := &variable{name: name, block: b, typ: cty.DynamicPseudoType, def: cty.NilVal}
	l.varByName[name] = v
	l.variables = append(l.variables, v)
	if a, ok := content.Attributes["type"]; ok {
		ty, defaults, d := typeexpr.TypeConstraintWithDefaults(a.Expr)
		diags = append(diags, d...)
		if !d.HasErrors() {
			v.typ, v.defaults, v.typed = ty, defaults, true
		}
	}
	// Variable blocks are evaluated before anything else exists, so their
	// attributes may only be constants (a nil context rejects references).
	dec := newDecoder(nil)
	v.description = dec.str(content.Attributes, "description", "")
	if p := dec.boolPtr(content.Attributes, "sensitive"); p != nil {
		v.sensitive = *p
	}
	diags = append(diags, dec.diags...)
	if a, ok := content.Attributes["default"]; ok {
		val, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() && !val.IsNull() {
			cv, err := v.convert(val)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid default value for variable",
					Detail:   fmt.Sprintf("The default of variable %q does not match its type: %s.", name, err),
					Subject:  a.Expr.Range().Ptr(),
				})
			} else {
				v.def = cv
			}
		}
	}
	return diags
}

// convert applies optional-attribute defaults and the type constraint.
func (v *variable) convert(val cty.Value) (cty.Value, error) {
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	return convert.Convert(val, v.typ)
}

// parseLiteral says whether a value given as text (-var, environment) is
// taken literally rather than parsed as an HCL expression. Terraform's rule:
// untyped and primitive-typed variables take the text as a string (which
// converts to number or bool as needed); lists, maps and objects parse it.
func (v *variable) parseLiteral() bool {
	return !v.typed || v.typ.IsPrimitiveType()
}

func invalidName(b *hcl.Block, kind string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid " + kind + " name",
		Detail: fmt.Sprintf("%s is not a valid %s name: a name must start with a letter or underscore "+
			"and may contain only letters, digits, underscores and dashes.", quoted(b.Labels[0]), kind),
		Subject: b.LabelRanges[0].Ptr(),
	}
}

func duplicateBlock(b *hcl.Block, kind string, prev *hcl.Block) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + kind + " block",
		Detail: fmt.Sprintf("A %s named %q was already declared at %s. Names must be unique; rename or remove one of them.",
			kind, b.Labels[0], source(prev.DefRange)),
		Subject: b.LabelRanges[0].Ptr(),
	}
}
