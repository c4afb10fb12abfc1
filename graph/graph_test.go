package graph

import (
	"fmt"
	"slices"
	"testing"
)

func TestAddIsIdempotentAndKeepsInsertionOrder(t *testing.T) {
	g := New()
	for _, n := range []string{"host.b", "host.a", "host.b", "pki.ca", "host.a"} {
		g.Add(n)
	}
	if got, want := g.Names(), []string{"host.b", "host.a", "pki.ca"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	if g.Len() != 3 {
		t.Fatalf("Len() = %d, want 3", g.Len())
	}
	if !g.Has("pki.ca") || g.Has("pki.other") {
		t.Fatalf("Has reports wrong membership")
	}
	names := g.Names()
	names[0] = "mutated"
	if g.Names()[0] != "host.b" {
		t.Fatalf("Names() exposes internal storage")
	}
}

func TestConnect(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		wantErr  string
	}{
		{"ok", "cert.api", "pki.ca", ""},
		{"self edge", "host.a", "host.a", "host.a depends on itself"},
		{"unknown from", "host.zz", "pki.ca", "cannot make host.zz depend on pki.ca: unknown vertex host.zz"},
		{"unknown to", "cert.api", "pki.zz", "cannot make cert.api depend on pki.zz: unknown vertex pki.zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, []string{"host.a", "pki.ca", "cert.api"}, nil)
			err := g.Connect(tt.from, tt.to)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if tt.wantErr != "" && len(g.DependenciesOf(tt.from)) != 0 {
				t.Fatalf("failed Connect left an edge behind")
			}
		})
	}
}

func TestDuplicateEdgeIsHarmless(t *testing.T) {
	g := build(t, []string{"a", "b"}, []edge{{"a", "b"}, {"a", "b"}, {"a", "b"}})
	if got := g.DependenciesOf("a"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("DependenciesOf(a) = %v, want [b]", got)
	}
	if got := dependentsOf(g, "b"); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("DependentsOf(b) = %v, want [a]", got)
	}
}

func TestDirectNeighboursAreSortedAndDirectional(t *testing.T) {
	g := build(t,
		[]string{"svc", "z", "m", "a", "leaf"},
		[]edge{{"svc", "z"}, {"svc", "a"}, {"svc", "m"}, {"leaf", "svc"}, {"z", "a"}},
	)
	tests := []struct {
		name       string
		deps, dnts []string
	}{
		{"svc", []string{"a", "m", "z"}, []string{"leaf"}},
		{"a", nil, []string{"svc", "z"}},
		{"leaf", []string{"svc"}, nil},
		{"unknown", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.DependenciesOf(tt.name); !slices.Equal(got, tt.deps) {
				t.Errorf("DependenciesOf = %v, want %v", got, tt.deps)
			}
			if got := dependentsOf(g, tt.name); !slices.Equal(got, tt.dnts) {
				t.Errorf("DependentsOf = %v, want %v", got, tt.dnts)
			}
		})
	}
}

// Connecting a pair twice adds nothing, for a vertex of few dependencies
// (searched in its list) and of many (kept in a set once past smallDegree).
func TestConnectTwiceAddsNothing(t *testing.T) {
	for _, deps := range []int{3, smallDegree, smallDegree + 1, 3 * smallDegree} {
		g := New()
		g.Add("top")
		for i := range deps {
			g.Add(fmt.Sprintf("d%02d", i))
		}
		for range 2 {
			for i := range deps {
				if err := g.Connect("top", fmt.Sprintf("d%02d", i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := len(g.DependenciesOf("top")); got != deps {
			t.Errorf("%d dependencies connected twice: %d recorded", deps, got)
		}
		if len(g.edgeList) != deps {
			t.Errorf("%d dependencies connected twice: %d edges", deps, len(g.edgeList))
		}
		if r := g.Reverse(); len(r.DependenciesOf("d00")) != 1 {
			t.Errorf("reversed: d00 has %v", r.DependenciesOf("d00"))
		}
	}
}
