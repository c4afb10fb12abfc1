package graph

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"
)

// timedGraph is a layered graph of tasks with seeded random durations and
// dependencies, the shape of a cluster apply: each layer depends on one to
// three tasks of the layers before it, mostly the previous one.
type timedGraph struct {
	g        *Graph
	duration []time.Duration // by insertion index
	deps     [][]int         // by insertion index
}

func newTimedGraph(tb testing.TB, seed int64, tasks int) *timedGraph {
	r := rand.New(rand.NewSource(seed))
	tg := &timedGraph{g: New()}
	var prevLayers [][]int
	for len(tg.duration) < tasks {
		width := min(6+r.Intn(10), tasks-len(tg.duration))
		var layer []int
		for range width {
			id := len(tg.duration)
			tg.g.Add(fmt.Sprintf("task.%03d", id))
			tg.duration = append(tg.duration, time.Duration(2000+r.Intn(3001))*time.Microsecond)
			var deps []int
			for k := 0; len(prevLayers) > 0 && k < 1+r.Intn(3); k++ {
				back := 1
				if r.Intn(4) == 0 {
					back = 1 + r.Intn(len(prevLayers))
				}
				from := prevLayers[len(prevLayers)-back]
				dep := from[r.Intn(len(from))]
				if slices.Contains(deps, dep) {
					continue
				}
				if err := tg.g.Connect(fmt.Sprintf("task.%03d", id), fmt.Sprintf("task.%03d", dep)); err != nil {
					tb.Fatal(err)
				}
				deps = append(deps, dep)
			}
			tg.deps = append(tg.deps, deps)
			layer = append(layer, id)
		}
		prevLayers = append(prevLayers, layer)
	}
	return tg
}

// listSchedule is the makespan of a zero-overhead list schedule on the same
// policy as Walk: whenever a worker is free, start the ready task that was
// added first. Durations are per insertion index.
func (tg *timedGraph) listSchedule(durations []time.Duration, workers int) time.Duration {
	n := len(durations)
	pending := make([]int, n)
	dependents := make([][]int, n)
	for v, deps := range tg.deps {
		for _, d := range deps {
			pending[v]++
			dependents[d] = append(dependents[d], v)
		}
	}
	var ready readyQueue
	for v := range n {
		if pending[v] == 0 {
			ready.push(int32(v))
		}
	}
	type job struct {
		id  int
		end time.Duration
	}
	var running []job
	var now time.Duration
	for done := 0; done < n; {
		for len(running) < workers && ready.Len() > 0 {
			id := int(ready.pop())
			running = append(running, job{id, now + durations[id]})
		}
		first := 0
		for i, j := range running {
			if j.end < running[first].end || (j.end == running[first].end && j.id < running[first].id) {
				first = i
			}
		}
		j := running[first]
		running = append(running[:first], running[first+1:]...)
		now = j.end
		done++
		for _, d := range dependents[j.id] {
			if pending[d]--; pending[d] == 0 {
				ready.push(int32(d))
			}
		}
	}
	return now
}

// lowerBound is max(critical path, total work / workers): no schedule of
// these durations can be shorter.
func (tg *timedGraph) lowerBound(durations []time.Duration, workers int) time.Duration {
	finish := make([]time.Duration, len(durations))
	var critical, total time.Duration
	for v, d := range durations { // insertion order is topological here
		var start time.Duration
		for _, dep := range tg.deps[v] {
			start = max(start, finish[dep])
		}
		finish[v] = start + d
		critical = max(critical, finish[v])
		total += d
	}
	return max(critical, total/time.Duration(workers))
}

// BenchmarkWalkOverhead measures how much longer a real Walk of 200 sleeping
// tasks takes than the ideal zero-overhead list schedule of the same tasks.
//
//   - overhead-%: against the list schedule replayed with the durations the
//     fns really took (time.Sleep overshoots); this isolates the walk's own
//     scheduling cost. Target ≤ 5 %.
//   - vs-nominal-%: against the list schedule of the nominal durations, so it
//     also counts the sleep overshoot of the host.
//   - vs-bound-%: against max(critical path, work/parallelism) of the nominal
//     durations; list scheduling itself may be above that bound.
func BenchmarkWalkOverhead(b *testing.B) {
	const parallelism = 10
	tg := newTimedGraph(b, 42, 200)
	nominalIdeal := tg.listSchedule(tg.duration, parallelism)
	bound := tg.lowerBound(tg.duration, parallelism)
	idOf := map[string]int{}
	for id, name := range tg.g.Names() {
		idOf[name] = id
	}
	var overhead, vsNominal, vsBound float64
	for b.Loop() {
		measured := make([]time.Duration, len(tg.duration))
		var mu sync.Mutex
		begin := time.Now()
		res := tg.g.Walk(context.Background(), WalkOptions{Parallelism: parallelism}, func(_ context.Context, name string) error {
			id := idOf[name]
			t0 := time.Now()
			time.Sleep(tg.duration[id])
			took := time.Since(t0)
			mu.Lock()
			measured[id] = took
			mu.Unlock()
			return nil
		})
		makespan := time.Since(begin)
		if !walkOK(res) {
			b.Fatal(walkErr(res))
		}
		ideal := tg.listSchedule(measured, parallelism)
		overhead += pct(makespan, ideal)
		vsNominal += pct(makespan, nominalIdeal)
		vsBound += pct(makespan, bound)
	}
	n := float64(b.N)
	b.ReportMetric(overhead/n, "overhead-%")
	b.ReportMetric(vsNominal/n, "vs-nominal-%")
	b.ReportMetric(vsBound/n, "vs-bound-%")
	b.ReportMetric(float64(nominalIdeal.Microseconds())/1000, "ideal-ms")
}

func pct(actual, ideal time.Duration) float64 {
	return 100 * float64(actual-ideal) / float64(ideal)
}

// bigGraph is 30,000 vertices and 100,000 distinct edges, each from a higher
// to a lower number, added in a shuffled order.
func bigGraph(tb testing.TB) *Graph {
	const vertices, edges = 30_000, 100_000
	r := rand.New(rand.NewSource(1))
	g := New()
	names := make([]string, vertices)
	for i := range names {
		names[i] = fmt.Sprintf("service.kubelet[\"w%05d\"]", i)
	}
	for _, i := range r.Perm(vertices) {
		g.Add(names[i])
	}
	seen := make(map[[2]int]bool, edges)
	for len(seen) < edges {
		a, b := r.Intn(vertices), r.Intn(vertices)
		pair := [2]int{max(a, b), min(a, b)}
		if a == b || seen[pair] {
			continue
		}
		seen[pair] = true
		if err := g.Connect(names[pair[0]], names[pair[1]]); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

func BenchmarkBuild30k(b *testing.B) {
	for b.Loop() {
		bigGraph(b)
	}
}

func BenchmarkTopoOrder30k(b *testing.B) {
	g := bigGraph(b)
	for b.Loop() {
		if _, err := g.TopoOrder(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWalkNoop30k(b *testing.B) {
	g := bigGraph(b)
	noop := func(context.Context, string) error { return nil }
	for b.Loop() {
		if res := g.Walk(context.Background(), WalkOptions{Parallelism: 10}, noop); len(res.Done) != g.Len() {
			b.Fatalf("walked %d of %d", len(res.Done), g.Len())
		}
	}
}
