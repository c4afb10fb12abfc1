package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
)

func TestTopoOrderIsStable(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		edges []edge
		want  []string
	}{
		{
			name:  "no edges keeps insertion order, not name order",
			names: []string{"c", "a", "b"},
			want:  []string{"c", "a", "b"},
		},
		{
			name:  "chain added dependents first",
			names: []string{"service.kubelet", "cert.kubelet", "pki.ca"},
			edges: []edge{{"service.kubelet", "cert.kubelet"}, {"cert.kubelet", "pki.ca"}},
			want:  []string{"pki.ca", "cert.kubelet", "service.kubelet"},
		},
		{
			name:  "diamond: siblings in insertion order",
			names: []string{"app", "db", "cache", "host"},
			edges: []edge{{"app", "db"}, {"app", "cache"}, {"db", "host"}, {"cache", "host"}},
			want:  []string{"host", "db", "cache", "app"},
		},
		{
			name:  "earliest-added ready vertex goes next",
			names: []string{"a", "b", "c", "d"},
			edges: []edge{{"a", "d"}, {"b", "c"}},
			// ready at first: c, d → c; then b (added before d) is ready.
			want: []string{"c", "b", "d", "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.names, tt.edges)
			for run := range 5 {
				got, err := g.TopoOrder()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("run %d: TopoOrder() = %v, want %v", run, got, tt.want)
				}
			}
		})
	}
}

// randomDAG adds n vertices in a shuffled order and edges only from a higher
// to a lower number, so it cannot have a cycle.
func randomDAG(t testing.TB, seed int64, n int, density float64) *Graph {
	r := rand.New(rand.NewSource(seed))
	g := New()
	for _, i := range r.Perm(n) {
		g.Add(fmt.Sprintf("v%03d", i))
	}
	for i := range n {
		for j := range i {
			if r.Float64() < density {
				if err := g.Connect(fmt.Sprintf("v%03d", i), fmt.Sprintf("v%03d", j)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return g
}

func TestTopoOrderRespectsEdgesAndMatchesSerialWalk(t *testing.T) {
	for seed := range int64(50) {
		g := randomDAG(t, seed, 30, 0.15)
		order, err := g.TopoOrder()
		if err != nil {
			t.Fatal(err)
		}
		pos := map[string]int{}
		for i, n := range order {
			pos[n] = i
		}
		if len(pos) != g.Len() {
			t.Fatalf("seed %d: order has %d distinct vertices, graph %d", seed, len(pos), g.Len())
		}
		for _, n := range g.Names() {
			for _, dep := range g.DependenciesOf(n) {
				if pos[dep] >= pos[n] {
					t.Fatalf("seed %d: %s placed before its dependency %s", seed, n, dep)
				}
			}
		}
		var mu sync.Mutex
		var walked []string
		g.Walk(context.Background(), WalkOptions{Parallelism: 1}, func(_ context.Context, name string) error {
			mu.Lock()
			defer mu.Unlock()
			walked = append(walked, name)
			return nil
		})
		if !slices.Equal(walked, order) {
			t.Fatalf("seed %d: serial walk %v differs from TopoOrder %v", seed, walked, order)
		}
	}
}

func TestCycleErrors(t *testing.T) {
	tests := []struct {
		name   string
		names  []string
		edges  []edge
		want   string
		cycles [][]string
	}{
		{
			name:  "two cycles, rotated to smallest name and sorted",
			names: []string{"x", "z", "c", "y", "b", "a", "w"},
			edges: []edge{
				{"z", "y"}, {"y", "z"}, // y → z → y
				{"c", "a"}, {"a", "b"}, {"b", "c"}, // a → b → c → a
				{"w", "a"}, {"a", "x"}, // attached to a cycle, not on one
			},
			want:   "cycle: a → b → c → a\ncycle: y → z → y",
			cycles: [][]string{{"a", "b", "c"}, {"y", "z"}},
		},
		{
			name:  "component with two cycles reports the shortest through its smallest name",
			names: []string{"d", "c", "b", "a"},
			edges: []edge{{"a", "c"}, {"c", "d"}, {"d", "a"}, {"a", "b"}, {"b", "a"}},
			want:  "cycle: a → b → a",
		},
		{
			name:  "ties between equally short cycles go to the smaller name",
			names: []string{"n", "m", "k"},
			edges: []edge{{"k", "n"}, {"n", "k"}, {"k", "m"}, {"m", "k"}},
			want:  "cycle: k → m → k",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The text must not depend on the order the graph was built in.
			for run := range 10 {
				names, edges := slices.Clone(tt.names), slices.Clone(tt.edges)
				r := rand.New(rand.NewSource(int64(run)))
				r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
				r.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
				g := build(t, names, edges)

				_, err := g.TopoOrder()
				var ce *CycleError
				if !errors.As(err, &ce) {
					t.Fatalf("TopoOrder error = %v, want *CycleError", err)
				}
				if err.Error() != tt.want {
					t.Fatalf("run %d: error text\n%s\nwant\n%s", run, err, tt.want)
				}
				if tt.cycles != nil && !slices.EqualFunc(ce.Cycles, tt.cycles, slices.Equal) {
					t.Fatalf("Cycles = %v, want %v", ce.Cycles, tt.cycles)
				}
				if verr := g.Validate(); verr == nil || verr.Error() != tt.want {
					t.Fatalf("Validate() = %v, want %q", verr, tt.want)
				}
			}
		})
	}
}

func TestValidateAcceptsDAG(t *testing.T) {
	if err := randomDAG(t, 1, 40, 0.2).Validate(); err != nil {
		t.Fatalf("Validate() = %v on an acyclic graph", err)
	}
}
