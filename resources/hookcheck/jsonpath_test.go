package hookcheck

import (
	"strings"
	"testing"
)

const doc = `{"name":"bryan","age":45,"a":{"b":{"c":true}},"items":[{"x":1},{"x":2.5}],"dotted":{"k.8s/io":"v"}}`

func TestJSONPathExtract(t *testing.T) {
	cases := map[string]string{
		"{$.age}":               `45`,
		"$.name":                `"bryan"`,
		"{.a.b.c}":              `true`,
		"{$.items[0].x}":        `1`,
		"{$.items[-1].x}":       `2.5`,
		`{$.dotted["k.8s/io"]}`: `"v"`,
		`{$['a']["b"]}`:         `{"c":true}`,
		"{$}":                   `{"a":{"b":{"c":true}},"age":45,"dotted":{"k.8s/io":"v"},"items":[{"x":1},{"x":2.5}],"name":"bryan"}`,
	}
	for path, want := range cases {
		jp, err := parseJSONPath(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := jp.extract([]byte(doc))
		if err != nil || string(got) != want {
			t.Errorf("%s: got %s, %v; want %s", path, got, err, want)
		}
	}
}

func TestJSONPathParseErrors(t *testing.T) {
	for path, want := range map[string]string{
		"{$.items[*].x}":    "[*] is neither an index nor a quoted key",
		"{$..x}":            "recursive descent",
		"{$.items[?(@.x)]}": "[?(@.x)] is neither",
		"$.items[0":         "missing ']'",
		"{$.}":              "expected a key",
		"{age}":             `unexpected "age"`,
	} {
		_, err := parseJSONPath(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want the path and %q", path, err, want)
		}
	}
}

func TestJSONPathExtractErrors(t *testing.T) {
	for path, want := range map[string]string{
		"{$.weight}":      `json_path {$.weight}: at $: key "weight" not found`,
		"{$.items[5].x}":  `at $["items"]: index 5 out of range (length 2)`,
		"{$.name.first}":  `at $["name"]: key "first": not an object`,
		"{$.a[0]}":        `at $["a"]: index 0: not an array`,
		"{$.age.missing}": `not an object`,
	} {
		jp, err := parseJSONPath(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = jp.extract([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", path, err, want)
		}
	}
	jp, _ := parseJSONPath("{$.a}")
	if _, err := jp.extract([]byte("<html>")); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("HTML body: %v, want 'not JSON'", err)
	}
}
