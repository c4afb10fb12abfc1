package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// vertex is one object evaluated as a unit: a local value, a node block
// (all its instances), the cluster block or the default connection. Blocks
// are evaluated once each, in the order their references demand, and each
// sees only the values it refers to.
type vertex struct {
	kind, name string // "local"/"node"/"cluster"/"connection", and the name ("" for singletons)
	decl       hcl.Range
	traversals []hcl.Traversal
	rules      scopeRules
	eval       func(ctx *hcl.EvalContext) hcl.Diagnostics

	refs   []ref
	mark   int // 0 unvisited, 1 on the DFS stack, 2 ordered
	failed bool
}

func (v *vertex) id() string {
	if v.name == "" {
		return v.kind
	}
	return v.kind + "." + v.name
}

func (l *loader) addVertex(v *vertex) {
	if l.vertexByID == nil {
		l.vertexByID = map[string]*vertex{}
	}
	l.vertices = append(l.vertices, v)
	l.vertexByID[v.id()] = v
}

// evaluate resolves references, orders the vertices and evaluates them.
// A vertex whose dependency failed is skipped quietly: its own error would
// only repeat the first one.
func (l *loader) evaluate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, v := range l.vertices {
		refs, d := l.references(v.traversals, v.rules)
		diags = append(diags, d...)
		if v.kind == "node" && l.connection != nil {
			// Every node's connection starts from the default one.
			refs = append(refs, ref{to: "connection", rng: v.decl})
		}
		v.refs = refs
	}
	if diags.HasErrors() {
		return diags
	}
	order, d := l.order()
	diags = append(diags, d...)
	l.values = make(map[string]cty.Value, len(l.vertices))
	for _, v := range order {
		if v.failed {
			continue
		}
		for _, r := range v.refs {
			if l.vertexByID[r.to].failed {
				v.failed = true
				break
			}
		}
		if v.failed {
			continue
		}
		d := v.eval(l.scope(v.refs))
		diags = append(diags, d...)
		v.failed = d.HasErrors()
	}
	return diags
}

// order sorts the vertices so that each comes after what it refers to,
// keeping declaration order otherwise, and reports reference cycles.
func (l *loader) order() ([]*vertex, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	out := make([]*vertex, 0, len(l.vertices))
	var stack []*vertex
	var via []ref // via[i] leads from stack[i] to stack[i+1]
	var visit func(v *vertex)
	visit = func(v *vertex) {
		v.mark = 1
		stack = append(stack, v)
		for _, r := range v.refs {
			t := l.vertexByID[r.to]
			switch t.mark {
			case 0:
				via = append(via, r)
				visit(t)
				via = via[:len(via)-1]
			case 1:
				diags = append(diags, l.cycle(stack, via, t, r))
			}
		}
		stack = stack[:len(stack)-1]
		v.mark = 2
		out = append(out, v)
	}
	for _, v := range l.vertices {
		if v.mark == 0 {
			visit(v)
		}
	}
	return out, diags
}

// cycle reports the loop that closes when the top of stack refers back to
// target (through closing), pointing at the reference that enters the loop.
func (l *loader) cycle(stack []*vertex, via []ref, target *vertex, closing ref) *hcl.Diagnostic {
	start := 0
	for i, v := range stack {
		if v == target {
			start = i
		}
	}
	members := stack[start:]
	names := make([]string, 0, len(members)+1)
	for _, m := range members {
		m.failed = true
		names = append(names, fmt.Sprintf("%s (%s)", m.id(), source(m.decl)))
	}
	names = append(names, target.id())
	subject := closing.rng
	if start < len(via) {
		subject = via[start].rng
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Reference cycle",
		Detail: fmt.Sprintf("These refer to each other in a loop, so none of them can be evaluated: %s. "+
			"Remove one of the references.", strings.Join(names, " → ")),
		Subject: subject.Ptr(),
	}
}

// scope builds the evaluation context of a vertex from exactly the values it
// refers to, so a reference to one node never costs work proportional to
// the size of the whole configuration.
func (l *loader) scope(refs []ref) *hcl.EvalContext {
	locals := map[string]cty.Value{}
	nodes := map[string]cty.Value{}
	vars := map[string]cty.Value{"var": l.varObject}
	for _, r := range refs {
		t := l.vertexByID[r.to]
		switch t.kind {
		case "local":
			locals[t.name] = l.values[r.to]
		case "node":
			nodes[t.name] = l.values[r.to]
		case "cluster":
			vars["cluster"] = l.values[r.to]
		}
	}
	vars["local"] = cty.ObjectVal(locals)
	vars["node"] = cty.ObjectVal(nodes)
	return &hcl.EvalContext{Variables: vars, Functions: l.funcs}
}
