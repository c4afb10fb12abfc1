package state

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func addresses(s *State) string {
	var as []string
	for _, r := range s.Resources {
		as = append(as, r.Address)
	}
	return strings.Join(as, " ")
}

func TestSetLookupRemove(t *testing.T) {
	s := New()
	for _, a := range []string{"host.b", "host.d", "host.a", "host.c"} {
		s.Set(Resource{Address: a, Kind: "host"})
	}
	if got := addresses(s); got != "host.a host.b host.c host.d" {
		t.Fatalf("after inserts: %s", got)
	}

	s.Set(Resource{Address: "host.c", Kind: "host", Status: StatusPending})
	if got := addresses(s); got != "host.a host.b host.c host.d" {
		t.Fatalf("replacing added a resource: %s", got)
	}
	r, ok := s.Lookup("host.c")
	if !ok || r.Status != StatusPending {
		t.Fatalf("Lookup(host.c) = %+v %v, want the replaced resource", r, ok)
	}
	r.Status = "" // the pointer edits the state in place
	if again, _ := s.Lookup("host.c"); again.Status != "" {
		t.Error("edit through Lookup's pointer was lost")
	}
	if _, ok := s.Lookup("host.zz"); ok {
		t.Error("Lookup found a missing address")
	}

	if !s.Remove("host.b") || s.Remove("host.b") {
		t.Error("Remove should report true once, then false")
	}
	if got := addresses(s); got != "host.a host.c host.d" {
		t.Fatalf("after remove: %s", got)
	}
	for _, a := range []string{"host.a", "host.c", "host.d"} {
		if r, ok := s.Lookup(a); !ok || r.Address != a {
			t.Errorf("Lookup(%s) = %+v %v after remove", a, r, ok)
		}
	}
}

func TestSortRestoresOrder(t *testing.T) {
	s := sampleState()
	s.Sort()
	if !slices.IsSortedFunc(s.Resources, compareAddress) {
		t.Fatal("not sorted")
	}
	if _, ok := s.Lookup("pki.cluster_ca"); !ok {
		t.Fatal("Lookup fails after Sort")
	}
}

func TestCopyIsDeep(t *testing.T) {
	orig := sampleState()
	want := sampleState()
	c := orig.Copy()
	if !reflect.DeepEqual(c, orig) {
		t.Fatal("copy differs from the original")
	}
	// Change every level of the copy; the original must not move.
	c.Resources[0].Attributes["unit"] = "changed"
	c.Resources[0].Attributes["args"].([]any)[0] = "changed"
	c.Resources[0].Dependencies[0] = "changed"
	c.Resources[1].Attributes["facts"].(map[string]any)["os"] = "changed"
	c.Resources[2].Sensitive[0] = "changed"
	c.Resources = append(c.Resources[:1], c.Resources[2:]...)
	c.Outputs["nodes"] = float64(99)
	c.Serial = 100
	if !reflect.DeepEqual(orig, want) {
		t.Fatal("changing the copy changed the original")
	}
	if (*State)(nil).Copy() != nil {
		t.Error("Copy of nil should be nil")
	}
}
