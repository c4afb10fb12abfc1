package resources

import (
	"fmt"
	"reflect"
	"testing"
)

// TestRefsWalksOnlyWhatHoldsThem: Refs lists references in the order of
// sorted keys, and costs nothing for a large attribute without one (a
// service's files) beside the one that has one.
func TestRefsWalksOnlyWhatHoldsThem(t *testing.T) {
	files := make([]any, 200)
	for i := range files {
		files[i] = map[string]any{"path": fmt.Sprintf("/etc/f%d", i), "content": "x", "mode": "0644"}
	}
	a := Attrs{
		"z":     Ref{Addr: "pki.z", Attr: "cert"},
		"files": files,
		"kc":    map[string]any{"b": Ref{Addr: "cert.b", Attr: "key"}, "a": []any{"x", Ref{Addr: "cert.a", Attr: "cert"}}},
	}
	want := []Ref{{"cert.a", "cert"}, {"cert.b", "key"}, {"pki.z", "cert"}}
	if got := Refs(a); !reflect.DeepEqual(got, want) {
		t.Fatalf("Refs = %v, want %v", got, want)
	}
	if Refs(Attrs{"files": files}) != nil || HasRefs(files) {
		t.Fatal("references found in files")
	}
	if allocs := testing.AllocsPerRun(20, func() { Refs(a) }); allocs > 8 {
		t.Errorf("Refs allocates %.0f times beside 200 files without a reference, want a few", allocs)
	}
}
