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
}

// evalNode evaluates every instance of a node block. The block's
// expressions were analysed once; only their evaluation repeats.
func (l *loader) evalNode(nb *nodeBlock, ctx *hcl.EvalContext) hcl.Diagnostics {
	repeats, diags := l.repeats(nb, ctx)
	if diags.HasErrors() {
		return diags
	}
	dependsOn := l.nodeDependsOn(nb)
	ranges := nodeRanges(nb)
	nb.instances = make([]*nodeInstance, 0, len(repeats))
	for _, r := range repeats {
		ictx := ctx
		switch nb.rep {
		case forEach:
			ictx = ctx.NewChild()
			ictx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{
				"key": cty.StringVal(r.key), "value": r.each,
			})}
		case counted:
			ictx = ctx.NewChild()
			ictx.Variables = map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{
				"index": cty.NumberIntVal(int64(r.index)),
			})}
		}
		in, d := l.evalInstance(nb, r, ictx)
		diags = append(diags, d...)
		in.model.DependsOn = dependsOn
		in.model.Ranges = ranges
		nb.instances = append(nb.instances, in)
	}
	if !diags.HasErrors() {
		nb.value = nb.buildValue()
		l.values[nb.vertex.id()] = nb.value
	}
	return diags
}

// repeats evaluates for_each or count into the instance keys, in the order
// instances appear in Cluster.Nodes: for_each keys sorted, count ascending.
func (l *loader) repeats(nb *nodeBlock, ctx *hcl.EvalContext) ([]repeat, hcl.Diagnostics) {
	switch nb.rep {
	case forEach:
		return forEachRepeats(nb.content.Attributes["for_each"], ctx)
	case counted:
		return countRepeats(nb.label, nb.content.Attributes["count"], ctx)
	}
	return []repeat{{key: nb.label}}, nil
}

func forEachRepeats(a *hcl.Attribute, ctx *hcl.EvalContext) ([]repeat, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	invalid := func(detail string, args ...any) hcl.Diagnostics {
		return append(diags, diagf(a.Expr.Range(), "Invalid for_each argument", detail, args...))
	}
	if v.IsMarked() {
		return nil, invalid("for_each must not be sensitive: its keys become node names, which are shown in plans.")
	}
	if v.IsNull() {
		return nil, invalid("for_each must not be null; give a map, or a set of strings.")
	}
	if !v.IsWhollyKnown() {
		return nil, invalid("The for_each value is not known while loading the configuration.")
	}
	ty := v.Type()
	var out []repeat
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			out = append(out, repeat{key: k.AsString(), each: ev})
		}
	case ty.IsSetType():
		sv, err := convert.Convert(v, cty.Set(cty.String))
		if err != nil {
			return nil, invalid("A for_each set must contain strings; this one is %s.", ty.FriendlyName())
		}
		for it := sv.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			if ev.IsNull() {
				return nil, invalid("A for_each set must not contain null.")
			}
			out = append(out, repeat{key: ev.AsString(), each: ev})
		}
	default:
		hint := ""
		if ty.IsListType() || ty.IsTupleType() {
			hint = " To use a list of strings, convert it with toset(...)."
		}
		return nil, invalid("for_each needs a map, or a set of strings; this is %s.%s", ty.FriendlyName(), hint)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, diags
}

// maxCount bounds count so a typo cannot ask for billions of nodes.
const maxCount = 100000

func countRepeats(label string, a *hcl.Attribute, ctx *hcl.EvalContext) ([]repeat, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.IsMarked() {
		return nil, append(diags, diagf(a.Expr.Range(), "Invalid count argument",
			"count must not be sensitive: the number of nodes is shown in plans, as node names."))
	}
	nv, err := convert.Convert(v, cty.Number)
	if err != nil || nv.IsNull() || !nv.IsKnown() {
		return nil, append(diags, diagf(a.Expr.Range(), "Invalid count argument", "count must be a whole number."))
	}
	n, acc := nv.AsBigFloat().Int64()
	if !nv.AsBigFloat().IsInt() || acc != big.Exact || n < 0 || n > maxCount {
		return nil, append(diags, diagf(a.Expr.Range(), "Invalid count argument",
			"count must be a whole number from 0 to %d; got %s.", maxCount, nv.AsBigFloat().Text('g', -1)))
	}
	out := make([]repeat, n)
	for i := range out {
		out[i] = repeat{key: strconv.Itoa(i), index: i}
	}
	return out, diags
}

func (l *loader) evalInstance(nb *nodeBlock, r repeat, ctx *hcl.EvalContext) (*nodeInstance, hcl.Diagnostics) {
	dec := newDecoder(ctx)
	attrs := dec.require(nodeSchema, nb.content.Attributes)
	in := &nodeInstance{key: r.key}
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
	if !isDNSLabel(n.Name) && !dec.diags.HasErrors() {
		dec.errorf(in.nameRange, "Invalid node name",
			"The name of %s would be %q, but node names must be DNS labels: lowercase letters, digits and '-', "+
				"starting and ending with a letter or digit, at most 63 characters. Set name = \"...\" to choose another.",
			nb.instanceAddr(in), n.Name)
	}

	if a, ok := attrs["address"]; ok {
		in.addrRange = a.Expr.Range()
		n.Address = dec.str(attrs, "address", "")
		switch {
		case dec.diags.HasErrors():
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

	var own *connOverride
	if nb.conn != nil {
		o := l.decodeConnection(dec, nb.conn)
		own = &o
	}
	n.Connection = l.nodeConnection(dec, own)
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
			dec.errorf(elementRange(a.Expr, i, len(roles)), "Unknown role", "%q is not a role; the roles are %s.", r, valid)
		case seen[r]:
			dec.errorf(elementRange(a.Expr, i, len(roles)), "Duplicate role", "The role %q is listed twice.", r)
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
