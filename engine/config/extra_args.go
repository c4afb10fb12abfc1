package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// components are the programs eggo runs on the nodes: the keys extra_args
// may pass flags to.
var components = []string{
	"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "containerd", "flanneld",
}

func isComponent(s string) bool {
	for _, c := range components {
		if s == c {
			return true
		}
	}
	return false
}

// decodeExtraArgs reads extra_args: component → flag name (without
// dashes) → value. Numbers and bools become strings, as on a command line.
// Errors point at the offending key or value when the map is written as a
// literal, else at the whole expression.
func decodeExtraArgs(dec *decoder, attrs hcl.Attributes) map[string]map[string]string {
	out := map[string]map[string]string{}
	a := attrs["extra_args"]
	// Evaluated without a type so a wrong value is reported at its own
	// entry rather than at the whole map.
	v, ok := dec.eval(a, cty.DynamicPseudoType)
	if !ok {
		return out
	}
	if !isMapLike(v) {
		dec.errorf(a.Expr.Range(), "Invalid extra_args",
			"extra_args must map components to maps of flags, like { kubelet = { v = \"2\" } }; this is %s.", v.Type().FriendlyName())
		return out
	}
	entries := extraArgsEntries(dec, a.Expr, "The component")
	for it := v.ElementIterator(); it.Next(); {
		k, flags := it.Element()
		component := k.AsString()
		e := entries.get(component, a.Expr)
		if !isComponent(component) {
			dec.errorf(e.key, "Unknown component in extra_args",
				"%s is not a component eggo runs%s; the keys of extra_args are %s.",
				quoted(component), suggestion(component, components), strings.Join(components, ", "))
			continue
		}
		if flags.IsNull() || !isMapLike(flags) {
			dec.errorf(e.value.Range(), "Invalid extra_args",
				"extra_args[%s] must be a map of flags such as { v = \"2\" }; this is %s. Remove the entry to pass no flags.",
				quoted(component), describeType(flags))
			continue
		}
		out[component] = decodeFlags(dec, component, flags, extraArgsEntries(dec, e.value, "The "+component+" flag"), e.value)
	}
	return out
}

func decodeFlags(dec *decoder, component string, flags cty.Value, entries literalMap, expr hcl.Expression) map[string]string {
	out := make(map[string]string, flags.LengthInt())
	for it := flags.ElementIterator(); it.Next(); {
		k, v := it.Element()
		name := k.AsString()
		e := entries.get(name, expr)
		switch trimmed := strings.TrimLeft(name, "-"); {
		case trimmed != name && trimmed != "":
			dec.errorf(e.key, "Invalid flag name in extra_args",
				"Flag names in extra_args are written without leading dashes (eggo adds \"--\"): write %s instead of %s.",
				quoted(trimmed), quoted(name))
			continue
		case name == "" || strings.ContainsAny(name, "= \t\r\n\x00"):
			dec.errorf(e.key, "Invalid flag name in extra_args",
				"%s flag %s is not a flag name: names are not empty and hold no '=' or spaces. "+
					"To pass --feature-gates=A=true, write \"feature-gates\" = \"A=true\".", component, quoted(name))
			continue
		}
		if v.IsNull() {
			dec.errorf(e.value.Range(), "Invalid flag value in extra_args",
				"The value of %s flag %s must not be null; remove the flag to leave eggo's own value.", component, quoted(name))
			continue
		}
		sv, err := convert.Convert(v, cty.String)
		if err != nil {
			dec.errorf(e.value.Range(), "Invalid flag value in extra_args",
				"The value of %s flag %s must be a string, number or bool; this is %s.", component, quoted(name), describeType(v))
			continue
		}
		value := sv.AsString()
		// A line break would end the command line inside the unit file; the
		// value is not shown because it may be a secret.
		if strings.ContainsAny(value, "\r\n\x00") {
			dec.errorf(e.value.Range(), "Invalid flag value in extra_args",
				"The value of %s flag %s holds a line break or NUL character, which a command line cannot carry.", component, quoted(name))
			continue
		}
		out[name] = value
	}
	return out
}

func isMapLike(v cty.Value) bool {
	return v.Type().IsMapType() || v.Type().IsObjectType()
}

func describeType(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	return v.Type().FriendlyName()
}

// literalMap holds, for an object written as a literal { k = v }, the range
// of each key and its value expression.
type literalMap map[string]literalEntry

type literalEntry struct {
	key   hcl.Range
	value hcl.Expression
}

// literalEntries reads expr as a literal object; nil when it is not one
// (a variable, a function call): errors then point at the whole expression.
// HCL lets a later key silently replace an earlier one of the same name,
// which would drop values without a word, so a repeated key is an error:
// summary, and duplicate's detail from the key and where it was first given.
func literalEntries(dec *decoder, expr hcl.Expression, summary string, duplicate func(key, first string) string) literalMap {
	pairs, diags := hcl.ExprMap(expr)
	if diags.HasErrors() {
		return nil
	}
	out := make(literalMap, len(pairs))
	for _, p := range pairs {
		k, diags := p.Key.Value(dec.ctx)
		if diags.HasErrors() || !k.IsKnown() || k.IsNull() || k.Type() != cty.String {
			continue
		}
		key := k.AsString()
		if prev, dup := out[key]; dup {
			dec.errorf(p.Key.Range(), summary, "%s", duplicate(key, source(prev.key)))
		}
		out[key] = literalEntry{key: p.Key.Range(), value: p.Value}
	}
	return out
}

// extraArgsEntries is literalEntries for extra_args and its components:
// what names the key ("The component", "The kubelet flag").
func extraArgsEntries(dec *decoder, expr hcl.Expression, what string) literalMap {
	return literalEntries(dec, expr, "Duplicate key in extra_args", func(key, first string) string {
		return fmt.Sprintf("%s %s is already given at %s, and only the last would be used; merge the two.", what, quoted(key), first)
	})
}

// get returns the entry of key, or whole as both key and value when the
// object is not a literal.
func (m literalMap) get(key string, whole hcl.Expression) literalEntry {
	if e, ok := m[key]; ok {
		return e
	}
	return literalEntry{key: whole.Range(), value: whole}
}

// suggestion returns ` (did you mean "x"?)` for the valid name closest to
// s by edit distance, when it is close enough to be a typo.
func suggestion(s string, valid []string) string {
	best, bestDist := "", len(s)/3+2
	for _, v := range valid {
		if d := editDistance(s, v); d < bestDist {
			best, bestDist = v, d
		}
	}
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
