package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/eggo-project/eggo/resources"
)

// repetition says how a node block expands into instances.
type repetition int

const (
	single repetition = iota
	forEach
	counted
)

// nodeBlock is one node block and, once evaluated, its instances.
type nodeBlock struct {
	label   string
	block   *hcl.Block
	content *hcl.BodyContent
	conn    *connectionBody // the node's own connection block, nil if none
	rep     repetition
	vertex  *vertex
	// unknownRep: the for_each or count is not known (validate mode), so
	// the instances are not known either and instances is empty.
	unknownRep bool
	instances  []*nodeInstance
	value      cty.Value // what node.LABEL evaluates to
}

// nodeInstance is one machine a node block declares.
type nodeInstance struct {
	model     resources.Node
	key       string // for_each key, or count index in decimal
	nameRange hcl.Range
	addrRange hcl.Range
	// unknown names the attributes of node.LABEL that are not known
	// (validate mode); every is the stand-in for all the instances of a
	// block whose for_each or count is unknown. See partial.go.
	unknown map[string]bool
	every   bool
}

// nodeObjectType is the type of each node's value under node.LABEL.
var nodeObjectType = cty.Object(map[string]cty.Type{
	"name":    cty.String,
	"address": cty.String,
	"arch":    cty.String,
	"roles":   cty.List(cty.String),
	"labels":  cty.Map(cty.String),
})

func (l *loader) declareNode(b *hcl.Block) hcl.Diagnostics {
	label := b.Labels[0]
	if !hclsyntax.ValidIdentifier(label) {
		return hcl.Diagnostics{invalidName(b, "node")}
	}
	if prev, ok := l.nodeByName[label]; ok {
		return hcl.Diagnostics{duplicateBlock(b, "node", prev.block)}
	}
	content, diags := b.Body.Content(nodeSchema)
	nb := &nodeBlock{label: label, block: b, content: content}
	l.nodes = append(l.nodes, nb)
	l.nodeByName[label] = nb
	for _, cb := range content.Blocks {
		if nb.conn != nil {
			diags = append(diags, diagf(cb.DefRange, "Duplicate connection block",
				"Node %q already has a connection block at %s; merge the two.", label, source(nb.conn.block.DefRange)))
			continue
		}
		c, d := parseConnection(cb)
		diags = append(diags, d...)
		nb.conn = c
	}
	fe, hasForEach := content.Attributes["for_each"]
	cnt, hasCount := content.Attributes["count"]
	switch {
	case hasForEach && hasCount:
		diags = append(diags, diagf(cnt.NameRange, "Invalid combination of count and for_each",
			"A node block may use count or for_each, not both. for_each is set at %s.", source(fe.Range)))
	case hasForEach:
		nb.rep = forEach
	case hasCount:
		nb.rep = counted
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		diags = append(diags, checkDependsOn(a)...)
	}
	nb.vertex = &vertex{
		kind:       "node",
		name:       label,
		decl:       b.LabelRanges[0],
		traversals: bodyTraversals(b.Body),
		rules:      scopeRules{each: nb.rep == forEach, count: nb.rep == counted},
		eval:       func(ctx *hcl.EvalContext) hcl.Diagnostics { return l.evalNode(nb, ctx) },
	}
	l.addVertex(nb.vertex)
	return diags
}

// checkDependsOn requires depends_on to be a literal list of node
// references: it states an ordering, it is never evaluated as a value.
func checkDependsOn(a *hcl.Attribute) hcl.Diagnostics {
	exprs, diags := hcl.ExprList(a.Expr)
	if diags.HasErrors() {
		return hcl.Diagnostics{diagf(a.Expr.Range(), "Invalid depends_on",
			"depends_on must be a list of node references, like [node.m0, node.workers].")}
	}
	for _, e := range exprs {
		t, d := hcl.AbsTraversalForExpr(e)
		if d.HasErrors() || t.RootName() != "node" || len(t) < 2 {
			diags = append(diags, diagf(e.Range(), "Invalid depends_on",
				"Each element of depends_on must name a node block, like node.m0 (without quotes)."))
		}
	}
	return diags
}

// value builds what node.LABEL evaluates to: one object, a map of objects
// by for_each key, or a list of objects by count index.
func (nb *nodeBlock) buildValue() cty.Value {
	objs := make([]cty.Value, len(nb.instances))
	for i, in := range nb.instances {
		n := in.model
		objs[i] = withUnknowns(cty.ObjectVal(map[string]cty.Value{
			"name":    cty.StringVal(n.Name),
			"address": cty.StringVal(n.Address),
			"arch":    cty.StringVal(n.Arch),
			"roles":   stringListValue(n.Roles),
			"labels":  stringMapValue(n.Labels),
		}), in.unknown)
	}
	switch nb.rep {
	case forEach:
		if len(objs) == 0 {
			return cty.MapValEmpty(nodeObjectType)
		}
		m := make(map[string]cty.Value, len(objs))
		for i, in := range nb.instances {
			m[in.key] = objs[i]
		}
		return cty.MapVal(m)
	case counted:
		if len(objs) == 0 {
			return cty.ListValEmpty(nodeObjectType)
		}
		return cty.ListVal(objs)
	default:
		return objs[0]
	}
}

// source of a node for messages: "node.worker[\"w0\"] (main.hcl:12)".
func (nb *nodeBlock) instanceAddr(in *nodeInstance) string {
	switch {
	case in.every:
		return fmt.Sprintf("node.%s (each instance)", nb.label)
	case nb.rep == forEach:
		return fmt.Sprintf("node.%s[%s]", nb.label, quoted(in.key))
	case nb.rep == counted:
		return fmt.Sprintf("node.%s[%s]", nb.label, in.key)
	}
	return "node." + nb.label
}
