package config

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

type outputBlock struct {
	name    string
	block   *hcl.Block
	content *hcl.BodyContent
}

func (l *loader) declareOutput(b *hcl.Block) hcl.Diagnostics {
	if !hclsyntax.ValidIdentifier(b.Labels[0]) {
		return hcl.Diagnostics{invalidName(b, "output")}
	}
	for _, prev := range l.outputs {
		if prev.name == b.Labels[0] {
			return hcl.Diagnostics{duplicateBlock(b, "output", prev.block)}
		}
	}
	content, diags := b.Body.Content(outputSchema)
	l.outputs = append(l.outputs, &outputBlock{name: b.Labels[0], block: b, content: content})
	return diags
}

// evalOutputs evaluates the outputs last, when everything they may refer
// to is known. An output computed from a sensitive value, or holding a
// credential (credentials.go), must say sensitive = true, so nothing
// secret is printed by accident.
func (l *loader) evalOutputs() ([]Output, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var traversals []hcl.Traversal
	for _, o := range l.outputs {
		traversals = append(traversals, bodyTraversals(o.block.Body)...)
	}
	refs, d := l.references(traversals, scopeRules{})
	if diags = append(diags, d...); diags.HasErrors() {
		return nil, diags
	}
	ctx := l.scope(refs)
	out := make([]Output, 0, len(l.outputs))
	for _, o := range l.outputs {
		dec := l.decoder(ctx)
		attrs := o.content.Attributes
		res := Output{Name: o.name, Range: o.block.DefRange}
		res.Description = dec.str(attrs, "description", "")
		if p := dec.boolPtr(attrs, "sensitive"); p != nil {
			res.Sensitive = *p
		}
		diags = append(diags, dec.diags...)
		a := attrs["value"]
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		v, marks := v.UnmarkDeep()
		what := "is computed from a sensitive value (a sensitive variable, or a file that holds a private key, an identity or a token)"
		kind := ""
		if len(marks) == 0 {
			kind = secretIn(v)
			what = "holds " + kind
		}
		if (len(marks) > 0 || kind != "") && !res.Sensitive {
			diags = append(diags, diagf(a.Expr.Range(), "Output refers to sensitive values",
				"The value of output %q %s. Add sensitive = true to the output "+
					"block if it is meant to be shown only on request.", o.name, what))
			continue
		}
		res.Value = v
		out = append(out, res)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, diags
}
