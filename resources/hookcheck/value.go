package hookcheck

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// fromJSON turns a JSON document into the cty value a condition sees:
// objects, arrays (tuples), strings, numbers, booleans and null.
func fromJSON(doc []byte) (cty.Value, error) {
	ty, err := ctyjson.ImpliedType(doc)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(doc, ty)
}

// display is the value as a Measurement records it: strings as they are,
// everything else as JSON.
func display(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	if v.Type() == cty.String && v.IsKnown() {
		return v.AsString()
	}
	out, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return v.GoString()
	}
	return string(out)
}

// describe is a short rendering for messages: strings quoted, long values cut.
func describe(v cty.Value) string {
	if v == cty.NilVal || !v.IsKnown() {
		return "unknown"
	}
	text := display(v)
	if !v.IsNull() && v.Type() == cty.String {
		text = fmt.Sprintf("%q", text)
	}
	const max = 64
	if len(text) > max {
		text = text[:max] + "…"
	}
	return text
}

// compactJSON re-encodes a decoded JSON value (numbers kept exact).
func compactJSON(x any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}
