package resources

import (
	"encoding/json"
	"slices"
	"strings"
)

// Ref is a desired attribute value that is another resource's attribute,
// known only once that resource is applied — a CA's certificate among a
// leaf certificate's inputs, a join token in a kubelet's configuration.
// The engine adds the edge, shows the value as known after apply while the
// referenced resource is changing, and substitutes the real value just
// before the referring resource is applied, in the same run.
type Ref struct {
	Addr string // the referenced resource, e.g. pki.cluster_ca
	Attr string // its top-level attribute, e.g. cert
}

// The JSON forms of Ref and Unknown in saved plans.
const (
	refKey     = "eggo_ref"
	unknownKey = "eggo_unknown"
)

func (r Ref) String() string { return r.Addr + "#" + r.Attr }

// MarshalJSON keeps a Ref recognisable in a saved plan.
func (r Ref) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{refKey: r.String()})
}

// MarshalJSON keeps an Unknown recognisable in a saved plan.
func (Unknown) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]bool{unknownKey: true}) }

// RestoreMarkers turns the JSON forms of Ref and Unknown, read back from a
// saved plan, into values again.
func RestoreMarkers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 1 {
			if s, ok := t[refKey].(string); ok {
				if i := strings.LastIndexByte(s, '#'); i > 0 {
					return Ref{Addr: s[:i], Attr: s[i+1:]}
				}
			}
			if b, ok := t[unknownKey].(bool); ok && b {
				return Unknown{}
			}
		}
		for k, e := range t {
			t[k] = RestoreMarkers(e)
		}
		return t
	case Attrs:
		return Attrs(RestoreMarkers(map[string]any(t)).(map[string]any))
	case []any:
		for i, e := range t {
			t[i] = RestoreMarkers(e)
		}
	}
	return v
}

// HasRefs reports whether v holds a Ref anywhere: Refs without its
// sorting and its list, for the many attributes that hold none.
func HasRefs(v any) bool {
	switch t := v.(type) {
	case Ref:
		return true
	case map[string]any:
		for _, e := range t {
			if HasRefs(e) {
				return true
			}
		}
	case Attrs:
		return HasRefs(map[string]any(t))
	case []any:
		for _, e := range t {
			if HasRefs(e) {
				return true
			}
		}
	}
	return false
}

// Refs lists the references anywhere inside v, in a stable order.
func Refs(v any) []Ref {
	if !HasRefs(v) {
		return nil
	}
	var out []Ref
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case Ref:
			out = append(out, t)
		case map[string]any:
			// Only the keys whose values hold one are sorted and walked:
			// the others add nothing to the list.
			var with []string
			for k, e := range t {
				if HasRefs(e) {
					with = append(with, k)
				}
			}
			slices.Sort(with)
			for _, k := range with {
				walk(t[k])
			}
		case Attrs:
			walk(map[string]any(t))
		case []any:
			for _, e := range t {
				if HasRefs(e) {
					walk(e)
				}
			}
		}
	}
	walk(v)
	return out
}

// Substitute returns v with every Ref replaced by lookup's value. The maps
// and lists holding a Ref are copies; what holds none is v's own, shared
// (values are read, never changed): a plan resolves every service's files,
// and most of what they hold refers to nothing.
func Substitute(v any, lookup func(Ref) any) any {
	out, _ := substitute(v, lookup)
	return out
}

// substitute is Substitute, and whether v held a Ref (else out is v).
func substitute(v any, lookup func(Ref) any) (out any, changed bool) {
	switch t := v.(type) {
	case Ref:
		return lookup(t), true
	case Attrs:
		if m, changed := substituteMap(t, lookup); changed {
			return Attrs(m), true
		}
	case map[string]any:
		if m, changed := substituteMap(t, lookup); changed {
			return m, true
		}
	case []any:
		var copied []any
		for i, e := range t {
			n, changed := substitute(e, lookup)
			if changed && copied == nil {
				copied = make([]any, len(t))
				copy(copied, t)
			}
			if copied != nil {
				copied[i] = n
			}
		}
		if copied != nil {
			return copied, true
		}
	}
	return v, false
}

// substituteMap copies m once a value of it holds a Ref.
func substituteMap(m map[string]any, lookup func(Ref) any) (map[string]any, bool) {
	var copied map[string]any
	for k, e := range m {
		n, changed := substitute(e, lookup)
		if changed && copied == nil {
			copied = make(map[string]any, len(m))
			for k2, e2 := range m {
				copied[k2] = e2
			}
		}
		if copied != nil {
			copied[k] = n
		}
	}
	return copied, copied != nil
}
