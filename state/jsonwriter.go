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
