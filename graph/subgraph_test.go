package graph

import (
	"slices"
	"testing"
)

// clusterGraph is a small cluster-shaped graph used by several tests.
func clusterGraph(t *testing.T) *Graph {
	return build(t,
		[]string{"host.m0", "host.w0", "pki.ca", "cert.api", "etcd.m0", "service.api", "service.kubelet"},
		[]edge{
			{"cert.api", "pki.ca"},
			{"etcd.m0", "host.m0"},
			{"service.api", "cert.api"},
			{"service.api", "etcd.m0"},
			{"service.kubelet", "host.w0"},
			{"service.kubelet", "service.api"},
		})
}

func TestReverse(t *testing.T) {
	g := clusterGraph(t)
	r := g.Reverse()
	if !slices.Equal(r.Names(), g.Names()) {
		t.Fatalf("Reverse changed insertion order: %v", r.Names())
	}
	for _, n := range g.Names() {
		if got, want := r.DependenciesOf(n), dependentsOf(g, n); !slices.Equal(got, want) {
			t.Errorf("reversed DependenciesOf(%s) = %v, want %v", n, got, want)
		}
		if got, want := dependentsOf(r, n), g.DependenciesOf(n); !slices.Equal(got, want) {
			t.Errorf("reversed DependentsOf(%s) = %v, want %v", n, got, want)
		}
	}
	order, err := r.TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"service.kubelet", "host.w0", "service.api", "cert.api", "pki.ca", "etcd.m0", "host.m0"}
	if !slices.Equal(order, want) {
		t.Fatalf("destroy order = %v, want %v", order, want)
	}
	// Reverse is a copy: changing it leaves the original alone.
	r.Add("extra")
	if g.Has("extra") {
		t.Fatalf("Reverse shares storage with the original")
	}
}

func TestWithDependencies(t *testing.T) {
	tests := []struct {
		name    string
		targets []string
		want    []string
		wantErr string
	}{
		{"leaf has only itself", []string{"pki.ca"}, []string{"pki.ca"}, ""},
		{"transitive, insertion order kept", []string{"service.api"},
			[]string{"host.m0", "pki.ca", "cert.api", "etcd.m0", "service.api"}, ""},
		{"several targets sharing dependencies", []string{"cert.api", "etcd.m0", "cert.api"},
			[]string{"host.m0", "pki.ca", "cert.api", "etcd.m0"}, ""},
		{"unknown target", []string{"cert.api", "host.nope"}, nil, "unknown target host.nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := clusterGraph(t)
			sub, err := g.WithDependencies(tt.targets)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sub.Names(), tt.want) {
				t.Fatalf("Names() = %v, want %v", sub.Names(), tt.want)
			}
			// Edges among kept vertices survive; edges to dropped ones do not.
			for _, n := range sub.Names() {
				if got, want := sub.DependenciesOf(n), g.DependenciesOf(n); !slices.Equal(got, want) {
					t.Errorf("DependenciesOf(%s) = %v, want %v", n, got, want)
				}
				for _, d := range dependentsOf(sub, n) {
					if !sub.Has(d) {
						t.Errorf("edge to dropped vertex %s", d)
					}
				}
			}
		})
	}
}

func TestWithDependenciesOfReverseSelectsDependents(t *testing.T) {
	sub, err := clusterGraph(t).Reverse().WithDependencies([]string{"etcd.m0"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sub.Names(), []string{"etcd.m0", "service.api", "service.kubelet"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
}
