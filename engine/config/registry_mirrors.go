package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/eggo-project/eggo/resources"
)

// decodeRegistryMirrors reads runtime.registry_mirrors: registry host →
// the mirrors containerd tries before it. Each host and mirror is checked
// as resources checks it (resources/registry_mirrors.go), at its key or
// list element when the map is written as a literal, else at the
// expression; nil when absent.
func decodeRegistryMirrors(dec *decoder, a *hcl.Attribute) map[string][]string {
	v, ok := dec.eval(a, cty.Map(cty.List(cty.String)))
	if !ok {
		return nil
	}
	if n := v.LengthInt(); n > resources.MaxMirroredRegistries {
		dec.errorf(a.Expr.Range(), "Too many registries in registry_mirrors",
			"registry_mirrors gives mirrors to %d registries; at most %d may have them.", n, resources.MaxMirroredRegistries)
		return nil
	}
	entries := mirrorEntries(dec, a.Expr)
	out := make(map[string][]string, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, list := it.Element()
		host := k.AsString()
		e := entries.get(host, a.Expr)
		if msg := resources.RegistryHostError(host); msg != "" {
			dec.errorf(e.key, "Invalid registry host", "registry_mirrors key %s %s.", quoted(host), msg)
			continue
		}
		if list.IsNull() || list.LengthInt() == 0 || list.LengthInt() > resources.MaxRegistryMirrors {
			n := 0
			if !list.IsNull() {
				n = list.LengthInt()
			}
			dec.errorf(e.value.Range(), "Invalid registry mirrors",
				"registry_mirrors[%s] must list 1 to %d mirrors (URLs such as \"http://10.0.0.5:5000\"), tried in order; it lists %d.",
				quoted(host), resources.MaxRegistryMirrors, n)
			continue
		}
		if mirrors, ok := decodeMirrorList(dec, host, list, e.value); ok {
			out[host] = mirrors
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// decodeMirrorList reads one registry's mirrors, as hosts.toml names them.
func decodeMirrorList(dec *decoder, host string, list cty.Value, expr hcl.Expression) ([]string, bool) {
	n := list.LengthInt()
	var out []string
	ok := true
	for i, ev := range list.AsValueSlice() {
		rng := elementRange(expr, i, n)
		if ev.IsNull() {
			dec.errorf(rng, "Invalid registry mirror", "The mirrors of registry_mirrors[%s] must not be null.", quoted(host))
			ok = false
			continue
		}
		s := ev.AsString()
		mirror, msg := resources.RegistryMirror(s)
		if msg != "" {
			dec.errorf(rng, "Invalid registry mirror", "registry_mirrors[%s] mirror %s %s.", quoted(host), showMirror(s), msg)
			ok = false
			continue
		}
		if slices.Contains(out, mirror) {
			dec.errorf(rng, "Duplicate registry mirror", "registry_mirrors[%s] lists %s twice; containerd would try it twice.", quoted(host), quoted(mirror))
			ok = false
			continue
		}
		out = append(out, mirror)
	}
	return out, ok
}

// showMirror is a mirror for a message: not at all when it may hold a
// password (user:password@host).
func showMirror(s string) string {
	if strings.Contains(s, "@") {
		return "(not shown: it holds credentials)"
	}
	return quoted(s)
}

// mirrorEntries reads registry_mirrors as a literal object (nil when it is
// not one), refusing a host given twice: HCL would keep the last alone.
func mirrorEntries(dec *decoder, expr hcl.Expression) literalMap {
	return literalEntries(dec, expr, "Duplicate registry host", func(key, first string) string {
		return fmt.Sprintf("registry_mirrors[%s] is already given at %s, and only the last would be used; merge the two lists.", quoted(key), first)
	})
}

// registryMirrorsValue is cluster.runtime.registry_mirrors.
func registryMirrorsValue(m map[string][]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.List(cty.String))
	}
	vals := make(map[string]cty.Value, len(m))
	for _, host := range slices.Sorted(maps.Keys(m)) {
		list := make([]cty.Value, len(m[host]))
		for i, s := range m[host] {
			list[i] = cty.StringVal(s)
		}
		vals[host] = cty.ListVal(list)
	}
	return cty.MapVal(vals)
}
