package state

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeGolden(t *testing.T) {
	empty := &State{FormatVersion: FormatVersion, Lineage: "00000000-0000-4000-8000-000000000000"}
	tests := []struct {
		golden string
		state  *State
	}{
		{"empty.state", empty},
		{"cluster.state", sampleState()},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			checkGolden(t, tt.golden, Encode(tt.state))
		})
	}
}

// A sensitive mark on a value the record does not hold is not written: it
// protects nothing (a service's file sources are kept as digests only).
func TestSensitiveMarksOnlyHeldValues(t *testing.T) {
	s := New()
	s.Set(Resource{Address: "service.a", Kind: "service", Attributes: map[string]any{"key": "k", "file_digests": map[string]any{}},
		Sensitive: []string{"files", "key", "zz"}})
	s.Set(Resource{Address: "service.b", Kind: "service", Sealed: map[string]string{"key": "c2VhbGVk"}, Sensitive: []string{"files", "key"}})
	got, err := Decode(Encode(s), "t.state")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Resources {
		if strings.Join(r.Sensitive, ",") != "key" {
			t.Errorf("%s: sensitive %v, want [key]", r.Address, r.Sensitive)
		}
	}
	if strings.Join(s.Resources[0].Sensitive, ",") != "files,key,zz" {
		t.Error("Encode changed the caller's marks")
	}
}

func TestEncodeShape(t *testing.T) {
	got := string(Encode(sampleState()))
	for _, want := range []string{
		fmt.Sprintf("{\n\t\"format_version\": %d,\n", FormatVersion), // a tab a level, declared field order
		"<b>eggo & co</b>",   // no HTML escaping
		"\"attributes\": {}", // nil attributes written as {}
		"\"resources\": [\n\t\t{\n\t\t\t\"address\": \"cert.kubelet[\\\"w0\\\"]\"", // sorted by address
		"\"dependencies\": [\n\t\t\t\t\"host.w0\",\n\t\t\t\t\"pki.cluster_ca\"\n\t\t\t]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("encoding lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "}\n") || strings.HasSuffix(got, "\n\n") {
		t.Errorf("encoding should end with exactly one newline: %q", got[len(got)-5:])
	}
	if strings.Contains(got, "\"sensitive\": []") || strings.Contains(got, "\"dependencies\": []") {
		t.Errorf("empty lists should be omitted:\n%s", got)
	}
}

// Equal states encode identically however their slices and nil-ness differ.
func TestEncodeEqualStatesIdentical(t *testing.T) {
	a := sampleState()
	b := sampleState()
	// Reverse the resources and every list, make empty things nil and nil
	// things empty: none of it is content.
	for i, j := 0, len(b.Resources)-1; i < j; i, j = i+1, j-1 {
		b.Resources[i], b.Resources[j] = b.Resources[j], b.Resources[i]
	}
	for i := range b.Resources {
		r := &b.Resources[i]
		for x, y := 0, len(r.Dependencies)-1; x < y; x, y = x+1, y-1 {
			r.Dependencies[x], r.Dependencies[y] = r.Dependencies[y], r.Dependencies[x]
		}
		if r.Attributes == nil {
			r.Attributes = map[string]any{}
		}
		if len(r.Dependencies) == 0 {
			r.Dependencies = nil
		}
		if r.Sensitive == nil {
			r.Sensitive = []string{}
		}
	}
	ea, eb := Encode(a), Encode(b)
	if !bytes.Equal(ea, eb) {
		t.Fatalf("equal states encode differently:\n%s\n---\n%s", ea, eb)
	}
	if !bytes.Equal(ea, Encode(a)) {
		t.Fatal("two encodes of one state differ")
	}

	noOutputs := &State{FormatVersion: 1, Lineage: "x"}
	emptyOutputs := &State{FormatVersion: 1, Lineage: "x", Outputs: map[string]any{}, Resources: []Resource{}}
	if !bytes.Equal(Encode(noOutputs), Encode(emptyOutputs)) {
		t.Errorf("nil and empty Outputs/Resources encode differently:\n%s\n%s", Encode(noOutputs), Encode(emptyOutputs))
	}
}

func TestEncodeLeavesStateAlone(t *testing.T) {
	s := sampleState()
	before := sampleState()
	Encode(s)
	if !reflect.DeepEqual(s, before) {
		t.Fatal("Encode changed its argument")
	}
}

func TestRoundTripByteIdentical(t *testing.T) {
	for _, s := range []*State{sampleState(), New()} {
		first := Encode(s)
		decoded, err := Decode(first, "eggo.state")
		if err != nil {
			t.Fatal(err)
		}
		if second := Encode(decoded); !bytes.Equal(first, second) {
			t.Fatalf("decode+encode changed the bytes:\n%s\n---\n%s", first, second)
		}
	}
}

func TestMarshalNamesBadValueWithoutPrintingIt(t *testing.T) {
	s := sampleState()
	s.Resources[2].Attributes["key_pem"] = math.NaN()
	_, err := Marshal(s)
	if err == nil {
		t.Fatal("NaN attribute encoded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "pki.cluster_ca") || !strings.Contains(msg, `"key_pem"`) {
		t.Errorf("error should name the resource and attribute: %s", msg)
	}
	if strings.Contains(msg, "NaN") {
		t.Errorf("error should not print the value: %s", msg)
	}

	s = sampleState()
	s.Outputs["ch"] = make(chan int)
	if _, err := Marshal(s); err == nil || !strings.Contains(err.Error(), `output "ch"`) {
		t.Errorf("bad output: got %v", err)
	}
}
