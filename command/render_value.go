package command

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

const (
	sensitiveText = "(sensitive value)"
	unknownText   = "(known after apply)"
)

// renderValue renders a JSON attribute value in HCL-like syntax on one line
// when short, else across lines indented by indent; a multi-line string
// renders as a heredoc.
// sensitiveValue stands where a value no view may show was: text views
// print it as (sensitive value), JSON as the string "(sensitive value)".
// Every view redacts through it (redacted, shownOutputs), so no view can
// show what another hides.
type sensitiveValue struct{}

func (sensitiveValue) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(sensitiveText)), nil }

func renderValue(v any, indent string) string {
	if str, ok := v.(string); ok {
		if h, ok := heredoc(str, indent); ok {
			return h
		}
	}
	s := renderInline(v)
	if len(s) <= 80 {
		return s
	}
	switch t := v.(type) {
	case []any:
		var b strings.Builder
		b.WriteString("[\n")
		for _, e := range t {
			// An element that fits a wide line stays on one line: a list of
			// files reads as one file per line.
			el := renderInline(e)
			if len(el) > 160 {
				el = renderValue(e, indent+"    ")
			}
			b.WriteString(indent + "    " + el + ",\n")
		}
		b.WriteString(indent + "]")
		return b.String()
	case map[string]any:
		var b strings.Builder
		b.WriteString("{\n")
		keys := slices.Sorted(maps.Keys(t))
		w := maxLen(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s    %-*s = %s\n", indent, w, k, renderValue(t[k], indent+"    "))
		}
		b.WriteString(indent + "}")
		return b.String()
	}
	return s
}

func renderInline(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case resources.Unknown, *resources.Unknown:
		return unknownText
	case sensitiveValue:
		return sensitiveText
	case string:
		return strconv.Quote(t)
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case []string:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = strconv.Quote(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = renderInline(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		if len(t) == 0 {
			return "{}"
		}
		keys := slices.Sorted(maps.Keys(t))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " = " + renderInline(t[k])
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case resources.Attrs:
		return renderInline(map[string]any(t))
	}
	return fmt.Sprintf("%v", v)
}

func maxLen(ss []string) int {
	w := 0
	for _, s := range ss {
		if len(s) > w {
			w = len(s)
		}
	}
	return w
}

// keyedList returns a list of objects keyed by their "path" or "name"
// attribute, so a change in one element renders as that element's change.
func keyedList(v any) (map[string]map[string]any, []string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, nil, false
	}
	out := map[string]map[string]any{}
	var order []string
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		key, ok := m["path"].(string)
		if !ok {
			if key, ok = m["name"].(string); !ok {
				return nil, nil, false
			}
		}
		if _, dup := out[key]; dup {
			return nil, nil, false
		}
		out[key] = m
		order = append(order, key)
	}
	return out, order, true
}
