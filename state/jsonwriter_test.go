package state

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// referenceEncode is the encoding defined by encoding/json: what Encode's
// hand-written writer must reproduce byte for byte.
func referenceEncode(t testing.TB, s *State) []byte {
	t.Helper()
	c, err := canonical(s)
	if err != nil {
		t.Fatal(err)
	}
	c.Shared = shareValues(c)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriterMatchesEncodingJSON(t *testing.T) {
	odd := New()
	odd.Set(Resource{Address: "odd.values", Kind: "odd", Attributes: map[string]any{
		"control":   "a\x00b\x1fc\td\ne\rf\bg\fh\"i\\j\x7f",
		"html":      "<script>&</script>",
		"invalid":   "\xff\xfe ok \xc3",
		"linesep":   "x\u2028y\u2029z",
		"unicode":   "ünï 日本 🥚",
		"floats":    []any{0.0, math.Copysign(0, -1), 0.1, 1e-7, 1.5e-6, 1e20, 1e21, 123456789012345678.0, -2.5e-300, math.MaxFloat64},
		"nil_map":   map[string]any(nil),
		"nil_list":  []any(nil),
		"empty":     map[string]any{"m": map[string]any{}, "l": []any{}},
		"go_types":  []string{"a", "<b>"},
		"go_int":    42,
		"go_map":    map[string]int{"z": 1, "a": 2},
		"go_struct": struct{ A []int }{A: []int{1, 2}},
		"nested":    map[string]any{"deep": []any{map[string]any{"x": []any{nil, true, false}}}},
		"":          "empty key",
	}})
	odd.Outputs = map[string]any{"o": []any{map[string]any{}, "\u2028"}}
	for name, s := range map[string]*State{
		"sample": sampleState(),
		"empty":  {FormatVersion: 1, Lineage: "l"},
		"odd":    odd,
		"big":    bigState(300),
	} {
		t.Run(name, func(t *testing.T) {
			if got, want := Encode(s), referenceEncode(t, s); !bytes.Equal(got, want) {
				t.Errorf("writer and encoding/json differ:\n%s\n---\n%s", got, want)
			}
		})
	}
}

// referenceDecode is the decoding defined by encoding/json, which the
// hand-written reader must agree with on every file it accepts.
func referenceDecode(data []byte) (*State, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	return &s, nil
}

func TestReaderMatchesEncodingJSON(t *testing.T) {
	inputs := map[string]string{
		"escapes": `{"format_version": 1, "lineage": "l\u00e9\ud83e\udd5a\ud800x\udc00\/\b\f\n\r\t\"\\", "outputs": {"k": "\ud800\ud800", "raw": "\xff"}}`,
		"values":  `{"format_version": 1, "lineage": "l", "resources": [{"address": "a", "kind": "k", "attributes": {"n": -0, "e": 1E+2, "f": 0.5e-3, "big": 123456789012345678901234567890, "l": [null, true, false, [], {}], "dup": 1, "dup": 2}, "sensitive": [], "dependencies": null}], "outputs": null}`,
		"nulls":   `{"format_version": null, "serial": null, "lineage": "l", "eggo_version": null, "resources": null}`,
		"golden":  string(Encode(sampleState())),
	}
	inputs["escapes"] = strings.Replace(inputs["escapes"], `\xff`, "\xff", 1)
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			p := jsonReader{data: []byte(in)}
			got, err := p.state()
			if err != nil {
				t.Fatal(err)
			}
			want, err := referenceDecode([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("reader and encoding/json differ:\n%#v\n%#v", got, want)
			}
		})
	}
}
