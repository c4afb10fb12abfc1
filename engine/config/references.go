package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// ref is one reference from a block to another evaluated object:
// "local.NAME", "node.LABEL" or "cluster".
type ref struct {
	to        string
	rng       hcl.Range
	traversal hcl.Traversal
}

// scopeRules says which per-instance names a block may use.
type scopeRules struct {
	each, count bool
}

// bodyTraversals returns every variable reference in a body, nested blocks
// included. All eggo files are native syntax, so the syntax tree is walked
// directly; this is done once per block, never per instance.
func bodyTraversals(body hcl.Body) []hcl.Traversal {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []hcl.Traversal
	for _, a := range sb.Attributes {
		out = append(out, a.Expr.Variables()...)
	}
	for _, b := range sb.Blocks {
		out = append(out, bodyTraversals(b.Body)...)
	}
	return out
}

// references checks each traversal against what is declared and returns
// the objects it needs evaluated first. Mistakes are reported here, with
// the traversal's range, rather than as a generic evaluation error.
func (l *loader) references(traversals []hcl.Traversal, rules scopeRules) ([]ref, hcl.Diagnostics) {
	var refs []ref
	var diags hcl.Diagnostics
	for _, t := range traversals {
		root := t.RootName()
		rng := t.SourceRange()
		if root == "each" || root == "count" {
			if (root == "each" && !rules.each) || (root == "count" && !rules.count) {
				arg := map[string]string{"each": "for_each", "count": "count"}[root]
				diags = append(diags, diagf(rng, fmt.Sprintf("Reference to %q in context without %s", root, arg),
					"%q can only be used inside a node block that sets %s.", root, arg))
			}
			continue
		}
		if root == "cluster" {
			if len(l.clusters) > 0 {
				refs = append(refs, ref{to: "cluster", rng: rng, traversal: t})
			}
			continue
		}
		if root != "var" && root != "local" && root != "node" {
			diags = append(diags, diagf(rng, "Unknown variable",
				"There is no variable named %q. References start with var., local., node., cluster., "+
					"each. (in for_each nodes) or count. (in count nodes).", root))
			continue
		}
		attr, ok := attrName(t)
		if !ok {
			diags = append(diags, diagf(rng, "Invalid reference",
				"The %q object cannot be used as a whole; refer to one of its attributes, like %s.NAME.", root, root))
			continue
		}
		switch root {
		case "var":
			if _, ok := l.varByName[attr]; !ok {
				diags = append(diags, diagf(rng, "Reference to undeclared input variable",
					"No variable %q is declared. Declare it with a variable %q {} block.", attr, attr))
			}
		case "local":
			if _, ok := l.locals[attr]; !ok {
				diags = append(diags, diagf(rng, "Reference to undeclared local value",
					"No local value %q is declared in a locals block.", attr))
				continue
			}
			refs = append(refs, ref{to: "local." + attr, rng: rng, traversal: t})
		case "node":
			if _, ok := l.nodeByName[attr]; !ok {
				diags = append(diags, diagf(rng, "Reference to undeclared node",
					"No node block labelled %q is declared.", attr))
				continue
			}
			refs = append(refs, ref{to: "node." + attr, rng: rng, traversal: t})
		}
	}
	return refs, diags
}

// attrName returns the name after the root of a traversal (var.NAME).
func attrName(t hcl.Traversal) (string, bool) {
	if len(t) < 2 {
		return "", false
	}
	if a, ok := t[1].(hcl.TraverseAttr); ok {
		return a.Name, true
	}
	return "", false
}

func diagf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	}
}
