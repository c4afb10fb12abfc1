package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Validate mode (VarInput.Validate) loads a configuration whose variables
// may have no value: each is then an unknown value of its type, as in
// Terraform's validate. An attribute computed from one is left unchecked
// (decoder.eval records it as unknown and returns no value), so the model
// holds a zero value or default in its place. A check that compares it
// with something else, or that needs every node, must not run on such
// a stand-in: it would report a mistake the configuration does not have.
// This file holds what those checks ask.

// decoder makes a decoder for ctx that knows the loader's mode. Outside
// validate mode no value is ever unknown: variables are the only source
// of unknown values.
func (l *loader) decoder(ctx *hcl.EvalContext) *decoder {
	d := newDecoder(ctx)
	d.validate = l.validate
	return d
}

// markUnknown records that a's value is not known (validate mode).
func (d *decoder) markUnknown(a *hcl.Attribute) {
	if d.unknown == nil {
		d.unknown = map[hcl.Range]bool{}
	}
	d.unknown[a.Range] = true
}

// isUnknown says whether any of the named attributes was evaluated by d
// and found unknown. Absent attributes are not unknown.
func (d *decoder) isUnknown(attrs hcl.Attributes, names ...string) bool {
	for _, n := range names {
		if a := attrs[n]; a != nil && d.unknown[a.Range] {
			return true
		}
	}
	return false
}

// unknownNames are the names of the attributes of attrs whose ranges
// unknown holds (a decoder's unknown set).
func unknownNames(unknown map[hcl.Range]bool, attrs hcl.Attributes) map[string]bool {
	var names map[string]bool
	for name, a := range attrs {
		if unknown[a.Range] {
			names = withName(names, name)
		}
	}
	return names
}

// withName adds name to names.
func withName(names map[string]bool, name string) map[string]bool {
	if names == nil {
		names = map[string]bool{}
	}
	names[name] = true
	return names
}

// withUnknowns replaces the named attributes of obj (the value built from
// a decoded block's model) by unknown values of their types: a reference
// to one must see "not known", not the stand-in default.
func withUnknowns(obj cty.Value, names map[string]bool) cty.Value {
	if len(names) == 0 {
		return obj
	}
	m := obj.AsValueMap()
	for k, v := range m {
		if names[k] {
			m[k] = cty.UnknownVal(v.Type())
		}
	}
	return cty.ObjectVal(m)
}

// nodesPartial says whether validate mode could not tell all the nodes
// apart: a for_each or count, or some node's name or roles, is unknown.
// Then checks over the whole set of nodes (a master exists, names are
// unique across blocks, a hook's nodes exist) cannot be made.
func (l *loader) nodesPartial() bool {
	for _, nb := range l.nodes {
		if nb.unknownRep {
			return true
		}
		for _, in := range nb.instances {
			if in.unknown["name"] || in.unknown["roles"] {
				return true
			}
		}
	}
	return false
}

// clusterValue is what cluster.* evaluates to, with the attributes that
// validate mode found unknown left unknown.
func (cb *clusterBlock) value() cty.Value {
	v := clusterValue(&cb.model)
	if len(cb.unknown) == 0 {
		return v
	}
	m := v.AsValueMap()
	if cb.network != nil {
		m["network"] = withUnknowns(m["network"], unknownNames(cb.unknown, networkAttrs(cb)))
	}
	if cb.runtime != nil {
		content, _ := cb.runtime.Body.Content(runtimeSchema)
		m["runtime"] = withUnknowns(m["runtime"], unknownNames(cb.unknown, content.Attributes))
	}
	return withUnknowns(cty.ObjectVal(m), unknownNames(cb.unknown, cb.content.Attributes))
}

// unknownAttr says whether the cluster's attribute name (of the network
// block when network is set) was unknown in validate mode.
func (cb *clusterBlock) unknownAttr(network bool, name string) bool {
	attrs := cb.content.Attributes
	if network {
		if cb.network == nil {
			return false
		}
		attrs = networkAttrs(cb)
	}
	a := attrs[name]
	return a != nil && cb.unknown[a.Range]
}
