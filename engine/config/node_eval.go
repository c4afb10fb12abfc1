package config

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/eggo-project/eggo/resources"
)

// repeat is one instance's key: the for_each key and value, or the count
// index, to put in scope as each.* or count.index.
type repeat struct {
	key   string
	each  cty.Value // each.value; NilVal for count and single
	index int
	// every stands for all the instances of a block whose for_each or
	// count is not known (validate mode): each.* and count.index are
	// unknown, so the block is checked once for all of them.
	every bool
}

// evalNode evaluates every instance of a node block. The block's
// expressions were analysed once; only their evaluation repeats.
func (l *loader) evalNode(nb *nodeBlock, ctx *hcl.EvalContext) hcl.Diagnostics {
	repeats, known, diags := l.repeats(nb, ctx)
	if diags.HasErrors() {
		return diags
	}
	if !known {
		return append(diags, l.evalEveryNode(nb, ctx)...)
	}
	dependsOn := l.nodeDependsOn(nb)
	ranges := nodeRanges(nb)
	nb.instances = make([]*nodeInstance, len(repeats))
	found := make([]hcl.Diagnostics, len(repeats))
	l.nodeConnectionBase()
	resources.EachInParallel(len(repeats), func(i int) {
		nb.instances[i], found[i] = l.evalInstance(nb, repeats[i], instanceScope(nb, repeats[i], ctx))
	})
	for i, in := range nb.instances {
		diags = append(diags, found[i]...)
		in.model.DependsOn = dependsOn
		in.model.Ranges = ranges
	}
	if !diags.HasErrors() {
		nb.value = nb.buildValue()
		l.values[nb.vertex.id()] = nb.value
	}
	return diags
}

// evalEveryNode is evalNode for a block whose instances are not known
// (validate mode): it checks what does not depend on each.* or
// count.index, keeps no instance, and node.LABEL is unknown.
func (l *loader) evalEveryNode(nb *nodeBlock, ctx *hcl.EvalContext) hcl.Diagnostics {
	nb.unknownRep = true
	r := repeat{each: cty.DynamicVal, every: true}
	_, diags := l.evalInstance(nb, r, instanceScope(nb, r, ctx))
	if !diags.HasErrors() {
		ty := cty.Map(nodeObjectType)
		if nb.rep == counted {
			ty = cty.List(nodeObjectType)
		}
		nb.value = cty.UnknownVal(ty)
		l.values[nb.vertex.id()] = nb.value
	}
	return diags
}

// instanceScope puts each.* or count.index of r in scope.
func instanceScope(nb *nodeBlock, r repeat, ctx *hcl.EvalContext) *hcl.EvalContext {
	key, index := cty.StringVal(r.key), cty.NumberIntVal(int64(r.index))
	if r.every {
		key, index = cty.UnknownVal(cty.String), cty.UnknownVal(cty.Number)
	}
	switch nb.rep {
	case forEach:
		ictx := ctx.NewChild()
		ictx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": key, "value": r.each})}
		return ictx
	case counted:
		ictx := ctx.NewChild()
		ictx.Variables = map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": index})}
		return ictx
	}
	return ctx
}

// repeats evaluates for_each or count into the instance keys, in the order
// instances appear in Cluster.Nodes: for_each keys sorted, count ascending.
// known is false when they depend on an unknown value (validate mode).
func (l *loader) repeats(nb *nodeBlock, ctx *hcl.EvalContext) ([]repeat, bool, hcl.Diagnostics) {
	switch nb.rep {
	case forEach:
		return forEachRepeats(nb.content.Attributes["for_each"], ctx, l.validate)
	case counted:
		return countRepeats(nb.content.Attributes["count"], ctx, l.validate)
	}
	return []repeat{{key: nb.label}}, true, nil
}

func forEachRepeats(a *hcl.Attribute, ctx *hcl.EvalContext, validate bool) ([]repeat, bool, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, false, diags
	}
	invalid := func(detail string, args ...any) ([]repeat, bool, hcl.Diagnostics) {
		return nil, false, append(diags, diagf(a.Expr.Range(), "Invalid for_each argument", detail, args...))
	}
	if v.IsMarked() {
		return invalid("for_each must not be sensitive: its keys become node names, which are shown in plans.")
	}
	if v.IsNull() {
		return invalid("for_each must not be null; give a map, or a set of strings.")
	}
	if !v.IsWhollyKnown() && !validate {
		return invalid("The for_each value is not known while loading the configuration.")
	}
	ty := v.Type()
	var out []repeat
	switch {
	case ty == cty.DynamicPseudoType: // an unknown value of no particular type
		return nil, false, diags
	case ty.IsMapType() || ty.IsObjectType():
		if !v.IsKnown() { // a known map has known keys; its values may be unknown
			return nil, false, diags
		}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			out = append(out, repeat{key: k.AsString(), each: ev})
		}
	case ty.IsSetType():
		sv, err := convert.Convert(v, cty.Set(cty.String))
		if err != nil {
			return invalid("A for_each set must contain strings; this one is %s.", ty.FriendlyName())
		}
		if !sv.IsWhollyKnown() {
			return nil, false, diags
		}
		for it := sv.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			if ev.IsNull() {
				return invalid("A for_each set must not contain null.")
			}
			out = append(out, repeat{key: ev.AsString(), each: ev})
		}
	default:
		hint := ""
		if ty.IsListType() || ty.IsTupleType() {
			hint = " To use a list of strings, convert it with toset(...)."
		}
		return invalid("for_each needs a map, or a set of strings; this is %s.%s", ty.FriendlyName(), hint)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, true, diags
}

// maxCount bounds count so a typo cannot ask for billions of nodes.
const maxCount = 100000

func countRepeats(a *hcl.Attribute, ctx *hcl.EvalContext, validate bool) ([]repeat, bool, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, false, diags
	}
	if v.IsMarked() {
		return nil, false, append(diags, diagf(a.Expr.Range(), "Invalid count argument",
			"count must not be sensitive: the number of nodes is shown in plans, as node names."))
	}
	nv, err := convert.Convert(v, cty.Number)
	if err == nil && !nv.IsKnown() && validate {
		return nil, false, diags
	}
	if err != nil || nv.IsNull() || !nv.IsKnown() {
		return nil, false, append(diags, diagf(a.Expr.Range(), "Invalid count argument", "count must be a whole number."))
	}
	n, acc := nv.AsBigFloat().Int64()
	if !nv.AsBigFloat().IsInt() || acc != big.Exact || n < 0 || n > maxCount {
		return nil, false, append(diags, diagf(a.Expr.Range(), "Invalid count argument",
			"count must be a whole number from 0 to %d; got %s.", maxCount, clip(nv.AsBigFloat().Text('g', -1))))
	}
	out := make([]repeat, n)
	for i := range out {
		out[i] = repeat{key: strconv.Itoa(i), index: i}
	}
	return out, true, diags
}

func (l *loader) evalInstance(nb *nodeBlock, r repeat, ctx *hcl.EvalContext) (*nodeInstance, hcl.Diagnostics) {
	dec := l.decoder(ctx)
	attrs := dec.require(nodeSchema, nb.content.Attributes)
	in := &nodeInstance{key: r.key, every: r.every}
	n := &in.model
	n.Source = source(nb.block.DefRange)

	switch a, ok := attrs["name"]; {
	case ok:
		n.Name = dec.str(attrs, "name", "")
		in.nameRange = a.Expr.Range()
	case nb.rep == forEach:
		n.Name = r.key
		in.nameRange = attrs["for_each"].Expr.Range()
	case nb.rep == counted:
		n.Name = fmt.Sprintf("%s-%d", nb.label, r.index)
		in.nameRange = nb.block.LabelRanges[0]
	default:
		n.Name = nb.label
		in.nameRange = nb.block.LabelRanges[0]
	}
	nameUnknown := dec.isUnknown(attrs, "name") || (r.every && attrs["name"] == nil) // the key or index names it
	if !isDNSLabel(n.Name) && !dec.diags.HasErrors() && !nameUnknown {
		dec.errorf(in.nameRange, "Invalid node name",
			"The name of %s would be %s, but node names must be DNS labels: lowercase letters, digits and '-', "+
				"starting and ending with a letter or digit, at most 63 characters. Set name = \"...\" to choose another.",
			nb.instanceAddr(in), quoted(n.Name))
	}

	if a, ok := attrs["address"]; ok {
		in.addrRange = a.Expr.Range()
		n.Address = dec.str(attrs, "address", "")
		switch {
		case dec.diags.HasErrors(), dec.isUnknown(attrs, "address"):
		case !isHost(n.Address):
			dec.errorf(in.addrRange, "Invalid node address",
				"The address of %s must be an IP address or a DNS name; got %s.", nb.instanceAddr(in), dec.show(a, n.Address))
		case notAHost(n.Address) != "":
			dec.errorf(in.addrRange, "Invalid node address",
				"The address of %s is %s: %s. Give the IP address or DNS name of the machine itself.",
				nb.instanceAddr(in), dec.show(a, n.Address), notAHost(n.Address))
		}
	}

	n.Arch = dec.str(attrs, "arch", "amd64")
	if !isArch(n.Arch) {
		dec.errorf(attrs["arch"].Expr.Range(), "Invalid arch",
			"arch names a package directory like \"amd64\" or \"arm64\" (lowercase letters, digits, '_'); got %s.",
			dec.show(attrs["arch"], n.Arch))
	}
	n.Roles = decodeRoles(dec, attrs)
	n.Labels = dec.stringMap(attrs, "labels")
	if a := attrs["labels"]; a != nil {
		checkLabels(dec, a, n.Labels)
	}
	n.Taints = decodeTaints(dec, attrs)
	n.ProviderID = decodeProviderID(dec, attrs)

	var own *connOverride
	if nb.conn != nil {
		o := l.decodeConnection(dec, nb.conn)
		own = &o
	}
	n.Connection = l.nodeConnection(dec, own)
	in.unknown = unknownNames(dec.unknown, attrs)
	if nameUnknown {
		in.unknown = withName(in.unknown, "name")
	}
	return in, dec.diags
}

func isArch(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

func decodeRoles(dec *decoder, attrs hcl.Attributes) []string {
	a, ok := attrs["roles"]
	if !ok {
		return nil
	}
	roles, ok := dec.stringList(attrs, "roles")
	if !ok {
		return nil
	}
	valid := strings.Join(resources.Roles, ", ")
	if len(roles) == 0 {
		dec.errorf(a.Expr.Range(), "No roles", "A node needs at least one role: %s.", valid)
	}
	seen := map[string]bool{}
	for i, r := range roles {
		switch {
		case !isRole(r):
			dec.errorf(elementRange(a.Expr, i, len(roles)), "Unknown role", "%s is not a role; the roles are %s.", quoted(r), valid)
		case seen[r]:
			dec.errorf(elementRange(a.Expr, i, len(roles)), "Duplicate role", "The role %s is listed twice.", quoted(r))
		}
		seen[r] = true
	}
	return roles
}

func isRole(r string) bool {
	for _, valid := range resources.Roles {
		if r == valid {
			return true
		}
	}
	return false
}
