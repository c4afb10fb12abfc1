package host

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// Tests of the shared attribute helpers (resources/attrs.go,
// resources/connection.go) that the host kind is the first user of.

func TestNormalize(t *testing.T) {
	type inner struct {
		N    int    `json:"n"`
		Skip string `json:"-"`
		Opt  string `json:"opt,omitempty"`
	}
	type outer struct {
		Name  string
		In    inner             `json:"in"`
		Ptr   *inner            `json:"ptr"`
		Tags  []string          `json:"tags"`
		M     map[string]int    `json:"m"`
		Later resources.Unknown `json:"later"`
		Dur   time.Duration     `json:"dur"`
		Any   any               `json:"any"`
		ByInt map[int]string    `json:"by_int"`
		Deep  []map[string]any  `json:"deep"`
	}
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"nil", nil, nil},
		{"int becomes float64", 3, 3.0},
		{"uint8 becomes float64", uint8(7), 7.0},
		{"float32", float32(1.5), 1.5},
		{"strings", []string{"a", "b"}, []any{"a", "b"}},
		{"nil slice stays null", []string(nil), nil},
		{"string map", map[string]string{"k": "v"}, map[string]any{"k": "v"}},
		{"unknown kept", resources.Unknown{}, resources.Unknown{}},
		{"unknown pointer", &resources.Unknown{}, resources.Unknown{}},
		{"nested ints", map[string]any{"a": []any{1, int64(2)}}, map[string]any{"a": []any{1.0, 2.0}}},
		{"attrs", resources.Attrs{"p": 22}, map[string]any{"p": 22.0}},
		{"time as JSON", time.Unix(0, 0).UTC(), "1970-01-01T00:00:00Z"},
		{"bytes as base64", []byte("hi"), "aGk="},
		{"struct by json tags", outer{
			Name: "x", In: inner{N: 1, Skip: "no"}, Tags: []string{"t"}, M: map[string]int{"a": 1},
			Dur: time.Second, Any: []int{4}, ByInt: map[int]string{5: "five"},
			Deep: []map[string]any{{"u": resources.Unknown{}}},
		}, map[string]any{
			"Name": "x", "in": map[string]any{"n": 1.0}, "ptr": nil, "tags": []any{"t"},
			"m": map[string]any{"a": 1.0}, "later": resources.Unknown{}, "dur": 1e9, "any": []any{4.0},
			"by_int": map[string]any{"5": "five"}, "deep": []any{map[string]any{"u": resources.Unknown{}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resources.Normalize(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Normalize(%#v) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeMatchesJSONRoundTrip(t *testing.T) {
	in := map[string]any{"a": []int{1, 2}, "b": struct {
		X int `json:"x"`
	}{3}, "c": map[string][]string{"k": {"v"}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if got := resources.Normalize(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("Normalize = %#v, JSON round trip = %#v", got, want)
	}
}

func TestNormalizeDoesNotCopyJSONValues(t *testing.T) {
	m := map[string]any{"a": []any{"x", map[string]any{"b": 1.0}}}
	got := resources.Normalize(m).(map[string]any)
	got["new"] = true
	if _, ok := m["new"]; !ok {
		t.Fatal("Normalize copied a map that was already JSON")
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"int and float", 22, 22.0, true},
		{"different numbers", 22, 23.0, false},
		{"string slices", []string{"a"}, []any{"a"}, true},
		{"order matters in lists", []any{"a", "b"}, []any{"b", "a"}, false},
		{"missing key equals nil", map[string]any{"a": 1.0}, map[string]any{"a": 1.0, "b": nil}, true},
		{"missing key differs from value", map[string]any{"a": 1.0}, map[string]any{"a": 1.0, "b": false}, false},
		{"nested", map[string]any{"x": []any{map[string]any{"y": 1}}}, map[string]any{"x": []any{map[string]any{"y": 1.0}}}, true},
		{"unknown vs unknown", resources.Unknown{}, resources.Unknown{}, true},
		{"unknown vs value", resources.Unknown{}, "v", false},
		{"nil vs empty list", nil, []any{}, false},
		{"types differ", "1", 1.0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resources.Equal(tt.a, tt.b); got != tt.want {
				t.Fatalf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := resources.Equal(tt.b, tt.a); got != tt.want {
				t.Fatalf("Equal is not symmetric for %#v, %#v", tt.a, tt.b)
			}
		})
	}
}

func TestChangedAttrs(t *testing.T) {
	schema := resources.Schema{Attributes: map[string]resources.AttrSchema{"facts": {Computed: true}}}
	before := resources.Attrs{"a": 1.0, "b": "x", "facts": map[string]any{"os": "debian"}, "gone": true}
	after := resources.Attrs{"a": 1, "b": "y", "facts": map[string]any{"os": "ubuntu"}, "new": "n"}
	got := resources.ChangedAttrs(schema, before, after)
	want := []string{"b", "gone", "new"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ChangedAttrs = %v, want %v", got, want)
	}
	if got := resources.ChangedAttrs(schema, before, before); got != nil {
		t.Fatalf("ChangedAttrs of identical attrs = %v, want none", got)
	}
}

func TestTargetRoundTripsThroughState(t *testing.T) {
	t.Setenv("EGGO_TEST_PASSWORD", "hunter2-secret")
	n := resources.Node{Name: "m0", Address: "10.77.0.11", Connection: resources.Connection{
		User: "ops", PrivateKeyFile: "/home/ops/.ssh/id", PasswordEnv: "EGGO_TEST_PASSWORD", Agent: true,
		KnownHostsFile: "/home/ops/.ssh/known_hosts", Sudo: true, Timeout: 7 * time.Second, Retries: 2,
		Bastion: &resources.Bastion{Host: "jump", Port: 2222, User: "j", PasswordEnv: "EGGO_TEST_PASSWORD"},
	}}
	want := resources.TargetFor(n)
	if want.Type != "ssh" || want.Port != 22 || want.Bastion.Port != 2222 {
		t.Fatalf("TargetFor did not fill defaults: %+v", want)
	}
	b, err := json.Marshal(resources.Attrs{"address": n.Address, "connection": resources.ConnectionAttrs(n)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), os.Getenv("EGGO_TEST_PASSWORD")) {
		t.Fatalf("connection attributes hold the password: %s", b)
	}
	var state resources.Attrs
	if err := json.Unmarshal(b, &state); err != nil {
		t.Fatal(err)
	}
	got, err := resources.TargetFromAttrs("m0", state)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("target from state = %+v (bastion %+v)\nwant %+v (bastion %+v)", got, got.Bastion, want, want.Bastion)
	}
	if _, err := resources.TargetFromAttrs("m0", resources.Attrs{}); err == nil || !strings.Contains(err.Error(), "m0") {
		t.Fatalf("TargetFromAttrs without connection: %v", err)
	}
}
