package resources

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Normalize returns v as the JSON value it round-trips to through the state
// file: integers and other numbers become float64, structs become maps (by
// their json tags), slices []any, maps map[string]any. Unknown stays Unknown
// wherever it appears, because a value known only after apply must survive
// into the plan. Values already in JSON form are returned as they are,
// without copying, so normalizing state is cheap.
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, float64, Unknown, Ref:
		return v
	case *Unknown:
		return Unknown{}
	case Attrs:
		return normalizeMap(map[string]any(x))
	case map[string]any:
		return normalizeMap(x)
	case []any:
		return normalizeSlice(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case []string:
		if x == nil {
			return nil
		}
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]string:
		if x == nil {
			return nil
		}
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out
	}
	return normalizeValue(reflect.ValueOf(v))
}

// normalizeMap copies m only when one of its values is not in JSON form.
func normalizeMap(m map[string]any) any {
	if m == nil {
		return nil
	}
	var out map[string]any
	for k, e := range m {
		n := Normalize(e)
		if out == nil && !sameValue(n, e) {
			out = make(map[string]any, len(m))
			for k2, e2 := range m {
				out[k2] = e2
			}
		}
		if out != nil {
			out[k] = n
		}
	}
	if out == nil {
		return m
	}
	return out
}

// normalizeSlice copies s only when one of its elements is not in JSON form.
func normalizeSlice(s []any) any {
	if s == nil {
		return nil
	}
	var out []any
	for i, e := range s {
		n := Normalize(e)
		if out == nil && !sameValue(n, e) {
			out = make([]any, len(s))
			copy(out, s)
		}
		if out != nil {
			out[i] = n
		}
	}
	if out == nil {
		return s
	}
	return out
}

// sameValue reports whether Normalize returned its argument unchanged.
// Composite values are compared by identity, scalars by value.
func sameValue(n, e any) bool {
	switch nv := n.(type) {
	case map[string]any:
		ev, ok := e.(map[string]any)
		return ok && reflect.ValueOf(nv).UnsafePointer() == reflect.ValueOf(ev).UnsafePointer()
	case []any:
		ev, ok := e.([]any)
		return ok && len(nv) == len(ev) && (len(nv) == 0 || &nv[0] == &ev[0])
	case Unknown:
		_, ok := e.(Unknown)
		return ok
	case Ref:
		r, ok := e.(Ref)
		return ok && r == nv
	}
	switch e.(type) {
	case nil, string, bool, float64:
		return n == e
	}
	return false
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	unknownType       = reflect.TypeFor[Unknown]()
)

// normalizeValue handles every Go type the fast paths of Normalize do not,
// following encoding/json's rules.
func normalizeValue(rv reflect.Value) any {
	if !rv.IsValid() {
		return nil
	}
	t := rv.Type()
	if t == unknownType {
		return Unknown{}
	}
	if t.Kind() == reflect.Pointer && t.Elem() == unknownType {
		return Unknown{}
	}
	if t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) {
		if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && rv.IsNil() {
			return nil
		}
		return viaJSON(rv.Interface())
	}
	switch t.Kind() {
	case reflect.Bool:
		return rv.Bool()
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return Normalize(rv.Elem().Interface())
	case reflect.Slice:
		if rv.IsNil() {
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return viaJSON(rv.Interface()) // base64, as encoding/json does
		}
		fallthrough
	case reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = Normalize(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			out[mapKey(iter.Key())] = Normalize(iter.Value().Interface())
		}
		return out
	case reflect.Struct:
		out := map[string]any{}
		normalizeStruct(rv, out)
		return out
	}
	panic(fmt.Sprintf("resources.Normalize: %s has no JSON form", t))
}

// normalizeStruct writes the exported fields of rv into out the way
// encoding/json names them (json tags, omitempty, "-", embedded structs).
func normalizeStruct(rv reflect.Value, out map[string]any) {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := rv.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv, ft = fv.Elem(), ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				normalizeStruct(fv, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(","+opts+",", ",omitempty,") && fv.IsZero() && isEmptyKind(fv) {
			continue
		}
		out[name] = Normalize(fv.Interface())
	}
}

func isEmptyKind(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct:
		return false // encoding/json never omits a struct
	case reflect.Slice, reflect.Map, reflect.Array, reflect.String:
		return v.Len() == 0
	}
	return true
}

func mapKey(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	if k.Type().Implements(textMarshalerType) {
		b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		if err == nil {
			return string(b)
		}
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10)
	}
	return fmt.Sprint(k.Interface())
}

func viaJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("resources.Normalize: %T: %v", v, err))
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("resources.Normalize: %T: %v", v, err))
	}
	return out
}

// Equal reports whether a and b are the same JSON value after Normalize. A
// missing map entry equals a nil one, since the state file cannot tell them
// apart once written with omitempty-style writers. Unknown equals only Unknown.
func Equal(a, b any) bool {
	if !isJSON(a) {
		a = Normalize(a)
	}
	if !isJSON(b) {
		b = Normalize(b)
	}
	switch av := a.(type) {
	case nil:
		return b == nil
	case string, bool, float64:
		return a == b
	case Unknown:
		_, ok := b.(Unknown)
		return ok
	case Ref:
		r, ok := b.(Ref)
		return ok && r == av
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !Equal(av[i], bv[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range av {
			if !Equal(x, bv[k]) {
				return false
			}
		}
		for k, y := range bv {
			if _, seen := av[k]; !seen && y != nil {
				return false
			}
		}
		return true
	}
	return false
}

// isJSON reports whether v's top level is already a JSON type, so Equal can
// compare without normalizing (and copying) whole trees.
func isJSON(v any) bool {
	switch v.(type) {
	case nil, string, bool, float64, Unknown, Ref, []any, map[string]any:
		return true
	}
	return false
}

// ChangedAttrs returns the sorted top-level attribute names whose values
// differ between before and after. Computed attributes are skipped: the kind
// sets them, so a difference there is never a change the user asked for.
func ChangedAttrs(schema Schema, before, after Attrs) []string {
	var changed []string
	check := func(name string) {
		if schema.Attributes[name].Computed {
			return
		}
		if !Equal(before[name], after[name]) {
			changed = append(changed, name)
		}
	}
	for name := range before {
		check(name)
	}
	for name := range after {
		if _, seen := before[name]; !seen {
			check(name)
		}
	}
	sort.Strings(changed)
	return changed
}
