package config

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// local is one local value; several locals blocks share one namespace.
type local struct {
	name string
	attr *hcl.Attribute
}

func (l *loader) declareLocals(b *hcl.Block) hcl.Diagnostics {
	attrs, diags := b.Body.JustAttributes()
	sorted := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		sorted = append(sorted, a)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Range.Start.Byte < sorted[j].Range.Start.Byte })
	for _, a := range sorted {
		if prev, ok := l.locals[a.Name]; ok {
			diags = append(diags, diagf(a.NameRange, "Duplicate local value",
				"A local value named %q was already defined at %s. Local value names must be unique.",
				a.Name, source(prev.attr.Range)))
			continue
		}
		lv := &local{name: a.Name, attr: a}
		l.locals[a.Name] = lv
		id := "local." + a.Name
		l.addVertex(&vertex{
			kind:       "local",
			name:       a.Name,
			decl:       a.NameRange,
			traversals: a.Expr.Variables(),
			eval: func(ctx *hcl.EvalContext) hcl.Diagnostics {
				val, diags := a.Expr.Value(ctx)
				if !diags.HasErrors() {
					l.values[id] = val
				}
				return diags
			},
		})
	}
	return diags
}
