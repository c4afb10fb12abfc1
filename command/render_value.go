package command

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// Every view writes the same words for what it cannot show.
const (
	sensitiveText = jsonmsg.SensitiveValue
	unknownText   = jsonmsg.UnknownValue
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

func renderValue(v any, indent string) string { return string(appendValue(nil, v, indent)) }

func renderInline(v any) string { return string(appendInline(nil, v)) }

// appendValue appends v as renderValue renders it. The plan's text is
// appended into one buffer a step at a time, never built of strings: a
// 10,000-node plan renders hundreds of megabytes.
func appendValue(dst []byte, v any, indent string) []byte {
	if str, ok := v.(string); ok {
		if out, ok := appendHeredoc(dst, str, indent); ok {
			return out
		}
	}
	start := len(dst)
	dst = appendInline(dst, v)
	if len(dst)-start <= 80 {
		return dst
	}
	switch t := v.(type) {
	case []any:
		dst = append(dst[:start], "[\n"...)
		deeper := indented(indent)
		for _, e := range t {
			dst = append(append(dst, indent...), "    "...)
			// An element that fits a wide line stays on one line: a list of
			// files reads as one file per line.
			el := len(dst)
			if dst = appendInline(dst, e); len(dst)-el > 160 {
				dst = appendValue(dst[:el], e, deeper)
			}
			dst = append(dst, ",\n"...)
		}
		return append(append(dst, indent...), ']')
	case map[string]any:
		dst = append(dst[:start], "{\n"...)
		var small [16]string
		keys := appendSortedKeys(small[:0], t)
		w := maxLen(keys)
		deeper := indented(indent)
		for _, k := range keys {
			dst = appendPadded(append(dst, deeper...), k, w)
			dst = append(appendValue(append(dst, " = "...), t[k], deeper), '\n')
		}
		return append(append(dst, indent...), '}')
	}
	return dst
}

// appendPadded appends s left-aligned in w columns, as fmt's %-*s. s is a
// key, which a state may hold anything in: it is made safe.
func appendPadded(dst []byte, s string, w int) []byte {
	dst = text.AppendSafe(dst, s, false)
	for n := utf8.RuneCountInString(s); n < w; n++ {
		dst = append(dst, ' ')
	}
	return dst
}

func appendInline(dst []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...)
	case resources.Unknown, *resources.Unknown:
		return append(dst, unknownText...)
	case sensitiveValue:
		return append(dst, sensitiveText...)
	case string:
		return appendQuote(dst, t)
	case bool:
		return strconv.AppendBool(dst, t)
	case float64:
		return strconv.AppendFloat(dst, t, 'f', -1, 64)
	case int:
		return strconv.AppendInt(dst, int64(t), 10)
	case int64:
		return strconv.AppendInt(dst, t, 10)
	case []string:
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendQuote(dst, e)
		}
		return append(dst, ']')
	case []any:
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendInline(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		if len(t) == 0 {
			return append(dst, "{}"...)
		}
		dst = append(dst, "{ "...)
		var small [16]string
		for i, k := range appendSortedKeys(small[:0], t) {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendInline(append(text.AppendSafe(dst, k, false), " = "...), t[k])
		}
		return append(dst, " }"...)
	case resources.Attrs:
		return appendInline(dst, map[string]any(t))
	}
	return fmt.Appendf(dst, "%v", v)
}

// appendQuote is strconv.AppendQuote, without its rune-by-rune work for
// the common string that needs no escape (printable ASCII, no quote or
// backslash). strconv escapes every character text.Safe does, in the same
// notation: a value shows a control character as any other text does.
func appendQuote(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(dst, s)
		}
	}
	return append(append(append(dst, '"'), s...), '"')
}

// appendSortedKeys appends m's keys, sorted, to keys: given a small
// array's slice, a map's keys are sorted without an allocation.
func appendSortedKeys[M ~map[string]V, V any](keys []string, m M) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// spaces are the indentations of nested values, sliced.
const spaces = "                                                                "

// indented is indent four columns deeper.
func indented(indent string) string {
	if n := len(indent) + 4; n <= len(spaces) && strings.Trim(indent, " ") == "" {
		return spaces[:n]
	}
	return indent + "    "
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
