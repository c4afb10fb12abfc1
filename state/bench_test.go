package state

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// bigState returns a cluster-shaped state of n resources, each with a few
// attributes, a nested fact map and two dependencies.
func bigState(n int) *State {
	s := New()
	s.Resources = make([]Resource, 0, n)
	for i := range n {
		s.Resources = append(s.Resources, Resource{
			Address: fmt.Sprintf("service.kubelet[\"n%06d\"]", i),
			Kind:    "service",
			Node:    fmt.Sprintf("n%06d", i),
			Attributes: map[string]any{
				"unit":    "kubelet.service",
				"sha256":  "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
				"port":    float64(10250),
				"enabled": true,
				"facts":   map[string]any{"arch": "amd64", "cpus": float64(4), "addrs": []any{"10.77.0.21", "fd00::21"}},
			},
			Dependencies: []string{fmt.Sprintf("host.n%06d", i), "pki.cluster_ca"},
		})
	}
	return s
}

func BenchmarkEncode30k(b *testing.B) {
	s := bigState(30000)
	b.ResetTimer()
	for b.Loop() {
		Encode(s)
	}
}

func BenchmarkDecode30k(b *testing.B) {
	data := Encode(bigState(30000))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decode(data, "bench.state"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCopy30k(b *testing.B) {
	s := bigState(30000)
	b.ResetTimer()
	for b.Loop() {
		s.Copy()
	}
}

func BenchmarkLookup30k(b *testing.B) {
	s := bigState(30000)
	addrs := make([]string, 1000)
	for i := range addrs {
		addrs[i] = s.Resources[rand.IntN(len(s.Resources))].Address
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := s.Lookup(addrs[i%len(addrs)]); !ok {
			b.Fatal("miss")
		}
	}
}

// BenchmarkSetRandom30k builds a 30,000-resource state with Set in random
// order, as a first deploy that finishes resources in graph order would.
func BenchmarkSetRandom30k(b *testing.B) {
	src := bigState(30000).Resources
	order := rand.Perm(len(src))
	for b.Loop() {
		s := New()
		for _, i := range order {
			s.Set(src[i])
		}
	}
}

// BenchmarkSetManyRandom30k records the same 30,000 resources in random
// batches of 100, as an engine persisting every few hundred milliseconds
// would.
func BenchmarkSetManyRandom30k(b *testing.B) {
	src := bigState(30000).Resources
	shuffled := make([]Resource, len(src))
	for i, j := range rand.Perm(len(src)) {
		shuffled[i] = src[j]
	}
	for b.Loop() {
		s := New()
		for i := 0; i < len(shuffled); i += 100 {
			s.SetMany(shuffled[i:min(i+100, len(shuffled))])
		}
	}
}
