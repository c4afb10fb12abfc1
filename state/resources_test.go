package state

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
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

func TestSetManyAndRemoveMany(t *testing.T) {
	for _, size := range []int{3, 40} { // one at a time, and merged
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			s := New()
			s.Set(Resource{Address: "b.keep", Kind: "k"})
			s.Set(Resource{Address: "m.old", Kind: "k", Status: StatusPending})
			var batch []Resource
			for i := range size {
				batch = append(batch, Resource{Address: fmt.Sprintf("x.%03d", size-i), Kind: "k"})
			}
			batch = append(batch,
				Resource{Address: "m.old", Kind: "first"},
				Resource{Address: "a.new", Kind: "k"},
				Resource{Address: "m.old", Kind: "last"}, // later wins
			)
			s.SetMany(batch)
			if len(s.Resources) != size+3 {
				t.Fatalf("%d resources, want %d: %s", len(s.Resources), size+3, addresses(s))
			}
			if !slices.IsSortedFunc(s.Resources, compareAddress) {
				t.Fatalf("not sorted: %s", addresses(s))
			}
			if r, _ := s.Lookup("m.old"); r.Kind != "last" || r.Status != "" {
				t.Errorf("m.old = %+v, want the batch's last version", r)
			}
			if _, ok := s.Lookup("b.keep"); !ok {
				t.Error("b.keep lost")
			}

			var gone []string
			for i := range size {
				gone = append(gone, fmt.Sprintf("x.%03d", i+1))
			}
			gone = append(gone, "not.there")
			if n := s.RemoveMany(gone); n != size {
				t.Errorf("RemoveMany removed %d, want %d", n, size)
			}
			if got := addresses(s); got != "a.new b.keep m.old" {
				t.Errorf("after RemoveMany: %s", got)
			}
		})
	}
}

// SetMany must end exactly where the same resources Set one by one end.
func TestSetManyMatchesSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		one, many := New(), New()
		for range rng.IntN(30) {
			r := Resource{Address: fmt.Sprintf("r.%d", rng.IntN(60)), Kind: "k"}
			one.Set(r)
			many.Set(r)
		}
		var batch []Resource
		for i := range rng.IntN(40) {
			batch = append(batch, Resource{Address: fmt.Sprintf("r.%d", rng.IntN(60)), Kind: strconv.Itoa(i)})
		}
		for _, r := range batch {
			one.Set(r)
		}
		many.SetMany(batch)
		if !reflect.DeepEqual(one.Resources, many.Resources) {
			t.Fatalf("round %d: Set gives %v, SetMany gives %v", round, one.Resources, many.Resources)
		}
	}
}
