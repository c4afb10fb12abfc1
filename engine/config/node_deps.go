package config

import (
	"sort"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// nodeDependsOn lists the instance names a node block refers to, directly
// or through local values, and through depends_on. The engine turns them
// into edges host.THIS → host.THAT. A reference with a literal index
// (node.workers["w0"], node.pool[1]) names just that instance.
func (l *loader) nodeDependsOn(nb *nodeBlock) []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range l.nodeRefs(nb.vertex, map[string]bool{}) {
		target := l.nodeByName[l.vertexByID[r.to].name]
		for _, in := range target.selected(r.traversal) {
			if !seen[in.model.Name] {
				seen[in.model.Name] = true
				names = append(names, in.model.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// nodeRefs returns the references to node blocks made by v or by the local
// values it uses. visited guards against walking a local twice.
func (l *loader) nodeRefs(v *vertex, visited map[string]bool) []ref {
	var out []ref
	for _, r := range v.refs {
		t := l.vertexByID[r.to]
		switch t.kind {
		case "node":
			out = append(out, r)
		case "local":
			if !visited[r.to] {
				visited[r.to] = true
				out = append(out, l.nodeRefs(t, visited)...)
			}
		}
	}
	return out
}

// selected returns the instances a traversal node.LABEL[...] designates.
func (nb *nodeBlock) selected(t hcl.Traversal) []*nodeInstance {
	if len(t) < 3 || nb.rep == single {
		return nb.instances
	}
	idx, ok := t[2].(hcl.TraverseIndex)
	if !ok || !idx.Key.IsKnown() || idx.Key.IsNull() {
		return nb.instances
	}
	var key string
	switch idx.Key.Type() {
	case cty.String:
		key = idx.Key.AsString()
	case cty.Number:
		i, acc := idx.Key.AsBigFloat().Int64()
		if acc != 0 {
			return nb.instances
		}
		key = strconv.FormatInt(i, 10)
	default:
		return nb.instances
	}
	for _, in := range nb.instances {
		if in.key == key {
			return []*nodeInstance{in}
		}
	}
	return nb.instances
}
