package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// checkLabels refuses node labels Kubernetes would refuse (they become the
// Node object's labels),
// each at its key or value when the map is written as a literal, else at
// the attribute.
func checkLabels(dec *decoder, a *hcl.Attribute, labels map[string]string) {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		keyRng, valRng := mapItemRanges(a.Expr, k)
		if why := labelKeyError(k); why != "" {
			dec.errorf(keyRng, "Invalid label",
				"The label key %s %s. A key is a name of at most 63 characters (letters, digits, and '-', '_', '.' "+
					"inside), optionally after a DNS subdomain prefix and '/', like \"example.com/tier\".", quoted(k), why)
		}
		if why := labelValueError(labels[k]); why != "" {
			dec.errorf(valRng, "Invalid label",
				"The value of label %s %s. A value is empty or at most 63 characters: letters and digits at both "+
					"ends, and '-', '_', '.' inside.", quoted(k), why)
		}
	}
}

// labelKeyError says what is wrong with a label key; "" when nothing.
func labelKeyError(k string) string {
	name := k
	if i := strings.Index(k, "/"); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		if prefix == "" {
			return "has an empty prefix before '/'"
		}
		if !isDNSSubdomain(prefix) {
			return fmt.Sprintf("has the prefix %s, which is not a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253)", quoted(prefix))
		}
	}
	if name == "" {
		return "has an empty name"
	}
	return labelPartError(name)
}

// labelValueError says what is wrong with a label value; "" when nothing.
func labelValueError(v string) string {
	if v == "" {
		return ""
	}
	return labelPartError(v)
}

// labelPartError checks a label name or value: at most 63 characters,
// alphanumeric at both ends, '-', '_', '.' inside.
func labelPartError(s string) string {
	if len(s) > 63 {
		return fmt.Sprintf("is %d characters long, more than 63", len(s))
	}
	alnum := func(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for _, c := range s {
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("holds %q, which a label cannot", c)
		}
	}
	if !alnum(rune(s[0])) || !alnum(rune(s[len(s)-1])) {
		return "must start and end with a letter or digit"
	}
	return ""
}

// isDNSSubdomain reports whether s is an RFC 1123 subdomain in lowercase:
// dot-separated DNS labels, at most 253 characters.
func isDNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if !isDNSLabel(label) {
			return false
		}
	}
	return true
}

// mapItemRanges finds key's item in a literal map expression: the ranges
// of its key and value, or the whole expression's twice.
func mapItemRanges(expr hcl.Expression, key string) (hcl.Range, hcl.Range) {
	obj, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return expr.Range(), expr.Range()
	}
	for _, item := range obj.Items {
		k, diags := item.KeyExpr.Value(nil)
		if diags.HasErrors() || !k.IsKnown() || k.IsNull() || k.Type() != cty.String || k.AsString() != key {
			continue
		}
		return item.KeyExpr.Range(), item.ValueExpr.Range()
	}
	return expr.Range(), expr.Range()
}
