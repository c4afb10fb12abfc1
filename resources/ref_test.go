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

// TestSubstituteCopiesOnlyWhatHoldsARef: resolving a service's files
// copies the list and the file that refers to a certificate; the files
// that refer to nothing are the desired resource's own (a plan resolves
// every service of every node), and a value without a Ref is v itself.
func TestSubstituteCopiesOnlyWhatHoldsARef(t *testing.T) {
	file := func(content any) map[string]any {
		return map[string]any{"path": "/etc/kubernetes/f", "mode": "0644", "content": content}
	}
	plain := []any{file("a"), file("b"), file("c"), file("d")}
	files := append([]any{file(Ref{Addr: "cert.kubelet[\"w1\"]", Attr: "cert"})}, plain...)
	lookup := func(Ref) any { return "PEM" }
	got := Substitute(files, lookup).([]any)
	if got[0].(map[string]any)["content"] != "PEM" || files[0].(map[string]any)["content"] == "PEM" {
		t.Fatalf("the Ref was not replaced in a copy: %v", got[0])
	}
	for i := range plain {
		if reflect.ValueOf(got[i+1]).UnsafePointer() != reflect.ValueOf(plain[i]).UnsafePointer() {
			t.Errorf("file %d, which holds no Ref, was copied", i+1)
		}
	}
	var withRef, without any = files, plain
	allocs := testing.AllocsPerRun(100, func() { Substitute(withRef, lookup) })
	// The list and its interface, the one map (a small map is two).
	if allocs > 4 {
		t.Errorf("Substitute of 5 files, one with a Ref: %.0f allocations, want at most 4", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { Substitute(without, lookup) }); allocs != 0 {
		t.Errorf("Substitute of files without a Ref: %.0f allocations, want none", allocs)
	}
}
