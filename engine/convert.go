package engine

import (
	"encoding/json"
	"sort"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

func toObject(r *state.Resource) *resources.Object {
	return &resources.Object{
		Addr:      r.Address,
		Kind:      r.Kind,
		Node:      r.Node,
		Attrs:     resources.Attrs(r.Attributes),
		DependsOn: append([]string(nil), r.Dependencies...),
		Pending:   r.Status == state.StatusPending,
	}
}

func toResource(addr, kind, node string, attrs resources.Attrs, deps []string, sensitive []string, pending bool) state.Resource {
	r := state.Resource{
		Address:      addr,
		Kind:         kind,
		Node:         node,
		Attributes:   map[string]any(attrs),
		Dependencies: sortedCopy(deps),
		Sensitive:    sortedCopy(sensitive),
	}
	if r.Attributes == nil {
		r.Attributes = map[string]any{}
	}
	if pending {
		r.Status = state.StatusPending
	}
	return r
}

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// ctyToJSON converts an output value to a plain JSON value.
func ctyToJSON(v cty.Value) any {
	if !v.IsWhollyKnown() || v.IsNull() {
		return nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
