package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonWriter writes the state file's JSON directly, indented as it goes.
// encoding/json with SetIndent produced the same bytes (the tests hold the
// two to that) but took most of the encode time on reflection, map key
// sorting through reflect, and a second pass to indent.
type jsonWriter struct {
	buf   []byte
	err   error    // the first value that could not be encoded
	share *sharing // when set, notes the attribute values it may share
	keys  [][]string
}

// indent is one level of the file's indentation. A tab, not two spaces:
// a record sits four to six levels deep, and at two spaces a level the
// indentation was a sixth of a large cluster's file (1.4 KB of 8.3 per
// node); lines, and so git diffs, are the same.
const indent = "\t"

func (w *jsonWriter) newline(depth int) {
	w.buf = append(w.buf, '\n')
	for range depth {
		w.buf = append(w.buf, indent...)
	}
}

// key writes `"name": ` on a new line at depth, preceded by a comma unless
// it is the first member.
func (w *jsonWriter) key(first bool, depth int, name string) {
	if !first {
		w.buf = append(w.buf, ',')
	}
	w.newline(depth)
	w.buf = appendString(w.buf, name)
	w.buf = append(w.buf, ':', ' ')
}

// state writes s whole, its Shared table as it is: an upgrade's write of
// an older format, which has none. MarshalWith writes the parts itself,
// building the table from the resources as it writes them (see sharing).
func (w *jsonWriter) state(s *State) {
	w.head(s)
	if len(s.Shared) > 0 {
		w.key(false, 1, "shared")
		w.object(s.Shared, 1)
	}
	w.key(false, 1, "resources")
	w.resources(s.Resources)
	w.tail(s)
}

// head writes the fields before "shared", from the opening brace.
func (w *jsonWriter) head(s *State) {
	w.buf = append(w.buf, '{')
	w.key(true, 1, "format_version")
	w.buf = strconv.AppendInt(w.buf, int64(s.FormatVersion), 10)
	w.key(false, 1, "serial")
	w.buf = strconv.AppendUint(w.buf, s.Serial, 10)
	w.key(false, 1, "lineage")
	w.buf = appendString(w.buf, s.Lineage)
	w.key(false, 1, "eggo_version")
	w.buf = appendString(w.buf, s.EggoVersion)
	if len(s.Recipients) > 0 {
		w.key(false, 1, "recipients")
		w.strings(s.Recipients, 1)
	}
	if s.DataKey != "" {
		w.key(false, 1, "data_key")
		w.buf = appendString(w.buf, s.DataKey)
	}
	if len(s.HostKeys) > 0 {
		w.key(false, 1, "host_keys")
		w.stringMap(s.HostKeys, 1)
	}
}

// resources writes the value of "resources" at depth 1.
func (w *jsonWriter) resources(rs []Resource) {
	if len(rs) == 0 {
		w.buf = append(w.buf, "[]"...)
		return
	}
	w.buf = append(w.buf, '[')
	for i := range rs {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.newline(2)
		w.resource(&rs[i])
	}
	w.newline(1)
	w.buf = append(w.buf, ']')
}

// tail writes the fields after "resources", to the closing brace and the
// file's last newline.
func (w *jsonWriter) tail(s *State) {
	if len(s.Outputs) > 0 {
		w.key(false, 1, "outputs")
		w.object(s.Outputs, 1)
	}
	if len(s.SensitiveOutputs) > 0 {
		w.key(false, 1, "sensitive_outputs")
		w.strings(s.SensitiveOutputs, 1)
	}
	if len(s.SealedOutputs) > 0 {
		w.key(false, 1, "sealed_outputs")
		w.stringMap(s.SealedOutputs, 1)
	}
	if len(s.HookRuns) > 0 {
		w.key(false, 1, "hook_runs")
		w.other(s.HookRuns, 1)
	}
	if s.DeployPending {
		w.key(false, 1, "deploy_pending")
		w.buf = append(w.buf, "true"...)
	}
	w.buf = append(w.buf, "\n}\n"...)
}

// resource writes r at depth 2; empty optional fields are left out as the
// omitempty tags on Resource say.
func (w *jsonWriter) resource(r *Resource) {
	const depth = 3
	w.buf = append(w.buf, '{')
	w.key(true, depth, "address")
	w.buf = appendString(w.buf, r.Address)
	w.key(false, depth, "kind")
	w.buf = appendString(w.buf, r.Kind)
	if r.Node != "" {
		w.key(false, depth, "node")
		w.buf = appendString(w.buf, r.Node)
	}
	if r.Status != "" {
		w.key(false, depth, "status")
		w.buf = appendString(w.buf, r.Status)
	}
	w.key(false, depth, "attributes")
	if w.share != nil {
		w.attributes(r)
	} else {
		w.object(r.Attributes, depth)
	}
	if len(r.Sealed) > 0 {
		w.key(false, depth, "sealed")
		w.stringMap(r.Sealed, depth)
	}
	if len(r.Sensitive) > 0 {
		w.key(false, depth, "sensitive")
		w.strings(r.Sensitive, depth)
	}
	if len(r.Dependencies) > 0 {
		w.key(false, depth, "dependencies")
		w.strings(r.Dependencies, depth)
	}
	w.newline(depth - 1)
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) strings(ss []string, depth int) {
	w.buf = append(w.buf, '[')
	for i, s := range ss {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.newline(depth + 1)
		w.buf = appendString(w.buf, s)
	}
	w.newline(depth)
	w.buf = append(w.buf, ']')
}

// stringMap writes m, keys sorted, as a value at depth.
func (w *jsonWriter) stringMap(m map[string]string, depth int) {
	w.buf = append(w.buf, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		w.key(i == 0, depth+1, k)
		w.buf = appendString(w.buf, m[k])
	}
	w.newline(depth)
	w.buf = append(w.buf, '}')
}

// object writes m, keys sorted, as a value at depth (nil as null, like
// encoding/json).
func (w *jsonWriter) object(m map[string]any, depth int) {
	switch {
	case m == nil:
		w.buf = append(w.buf, "null"...)
		return
	case len(m) == 0:
		w.buf = append(w.buf, "{}"...)
		return
	}
	w.buf = append(w.buf, '{')
	for i, k := range w.sortedKeys(m, depth) {
		w.key(i == 0, depth+1, k)
		w.value(m[k], depth+1)
	}
	w.newline(depth)
	w.buf = append(w.buf, '}')
}

// sortedKeys is slices.Sorted(maps.Keys(m)) in a slice the writer keeps
// for each depth: a map's keys are done with before the next map at its
// depth is written. Every attribute map of every resource goes through
// here; a new slice each was most of the encoding's allocations (two a
// resource), and growing it instead of sizing it 6.5 times that.
func (w *jsonWriter) sortedKeys(m map[string]any, depth int) []string {
	for len(w.keys) <= depth {
		w.keys = append(w.keys, nil)
	}
	keys := w.keys[depth][:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.keys[depth] = keys
	return keys
}

func (w *jsonWriter) value(v any, depth int) {
	switch v := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case string:
		w.buf = appendString(w.buf, v)
	case bool:
		w.buf = strconv.AppendBool(w.buf, v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			w.fail(fmt.Errorf("unsupported value %v", v))
			return
		}
		w.buf = appendFloat(w.buf, v)
	case map[string]any:
		w.object(v, depth)
	case []any:
		switch {
		case v == nil:
			w.buf = append(w.buf, "null"...)
		case len(v) == 0:
			w.buf = append(w.buf, "[]"...)
		default:
			w.buf = append(w.buf, '[')
			for i, e := range v {
				if i > 0 {
					w.buf = append(w.buf, ',')
				}
				w.newline(depth + 1)
				w.value(e, depth+1)
			}
			w.newline(depth)
			w.buf = append(w.buf, ']')
		}
	default:
		w.other(v, depth)
	}
}

// other writes a value that is not a plain JSON value (an int, a
// []string…) the way encoding/json would: the Attrs contract asks for JSON
// values, but a kind that hands over Go types should not corrupt the file.
func (w *jsonWriter) other(v any, depth int) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.fail(err)
		return
	}
	var indented bytes.Buffer
	prefix := strings.Repeat(indent, depth)
	if err := json.Indent(&indented, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), prefix, indent); err != nil {
		w.fail(err)
		return
	}
	w.buf = append(w.buf, indented.Bytes()...)
}

func (w *jsonWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// appendFloat formats f exactly as encoding/json does, so that files
// written before and after this writer existed agree.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString quotes s exactly as encoding/json does with HTML escaping
// off: control characters, quote and backslash escaped, invalid UTF-8
// replaced by U+FFFD, U+2028 and U+2029 escaped (JavaScript line breaks).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
