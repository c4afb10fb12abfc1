package graph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a Walk callback that notes every call; fail and slow pick
// vertices that fail or take a while.
type recorder struct {
	mu    sync.Mutex
	calls []string
	fail  map[string]bool
	slow  map[string]time.Duration
}

func (r *recorder) fn(_ context.Context, name string) error {
	r.mu.Lock()
	r.calls = append(r.calls, name)
	r.mu.Unlock()
	time.Sleep(r.slow[name])
	if r.fail[name] {
		return fmt.Errorf("%s broke", name)
	}
	return nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

func TestWalkRunsAfterDependenciesFinish(t *testing.T) {
	for _, parallelism := range []int{1, 4, 16} {
		t.Run(fmt.Sprint("parallelism=", parallelism), func(t *testing.T) {
			g := randomDAG(t, 7, 150, 0.05)
			var clock atomic.Int64
			var mu sync.Mutex
			start, finish := map[string]int64{}, map[string]int64{}
			res := g.Walk(context.Background(), WalkOptions{Parallelism: parallelism}, func(_ context.Context, name string) error {
				s := clock.Add(1)
				runtime.Gosched()
				f := clock.Add(1)
				mu.Lock()
				start[name], finish[name] = s, f
				mu.Unlock()
				return nil
			})
			if !walkOK(res) || len(res.Done) != g.Len() {
				t.Fatalf("walk not OK: %v (done %d of %d)", walkErr(res), len(res.Done), g.Len())
			}
			for _, n := range g.Names() {
				for _, dep := range g.DependenciesOf(n) {
					if finish[dep] >= start[n] {
						t.Fatalf("%s started at %d before its dependency %s finished at %d", n, start[n], dep, finish[dep])
					}
				}
			}
			// Done is completion order. Only a serial walk makes the fns'
			// own clock readings a strict reference for that order.
			for i := 1; parallelism == 1 && i < len(res.Done); i++ {
				if finish[res.Done[i-1]] > finish[res.Done[i]] {
					t.Fatalf("Done not in completion order at %d: %v", i, res.Done[i-1:i+1])
				}
			}
		})
	}
}

func TestWalkNeverExceedsParallelism(t *testing.T) {
	tests := []struct {
		parallelism, want int
	}{{1, 1}, {3, 3}, {10, 10}, {0, DefaultParallelism}, {-2, DefaultParallelism}}
	for _, tt := range tests {
		t.Run(fmt.Sprint("parallelism=", tt.parallelism), func(t *testing.T) {
			g := New()
			for i := range 40 {
				g.Add(fmt.Sprint("host.", i))
			}
			var now, peak atomic.Int32
			res := g.Walk(context.Background(), WalkOptions{Parallelism: tt.parallelism}, func(context.Context, string) error {
				n := now.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(3 * time.Millisecond)
				now.Add(-1)
				return nil
			})
			if !walkOK(res) {
				t.Fatal(walkErr(res))
			}
			if got := int(peak.Load()); got != tt.want {
				t.Fatalf("peak concurrency = %d, want exactly %d", got, tt.want)
			}
		})
	}
}

func TestWalkFailureSkipsExactlyTheDependents(t *testing.T) {
	names := []string{"host.m0", "host.w0", "etcd.m0", "pki.ca", "cert.api", "service.api", "service.kubelet", "addon.dns"}
	edges := []edge{
		{"cert.api", "pki.ca"},
		{"etcd.m0", "host.m0"},
		{"service.api", "cert.api"},
		{"service.api", "etcd.m0"},
		{"service.kubelet", "host.w0"},
		{"addon.dns", "service.api"},
	}
	tests := []struct {
		name        string
		fail        []string
		wantSkipped map[string]string
		wantDone    []string
	}{
		{
			name: "root cause is the failed vertex, not the skipped one in between",
			fail: []string{"pki.ca"},
			wantSkipped: map[string]string{
				"cert.api": "pki.ca", "service.api": "pki.ca", "addon.dns": "pki.ca",
			},
			wantDone: []string{"etcd.m0", "host.m0", "host.w0", "service.kubelet"},
		},
		{
			name: "two failures upstream: the earliest-added is named",
			fail: []string{"pki.ca", "etcd.m0"},
			wantSkipped: map[string]string{
				"cert.api": "pki.ca", "service.api": "etcd.m0", "addon.dns": "etcd.m0",
			},
			wantDone: []string{"host.m0", "host.w0", "service.kubelet"},
		},
		{
			name:        "failing leaf skips nothing",
			fail:        []string{"addon.dns"},
			wantSkipped: map[string]string{},
			wantDone:    []string{"cert.api", "etcd.m0", "host.m0", "host.w0", "pki.ca", "service.api", "service.kubelet"},
		},
	}
	for _, tt := range tests {
		for _, parallelism := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/parallelism=%d", tt.name, parallelism), func(t *testing.T) {
				g := build(t, names, edges)
				rec := &recorder{fail: map[string]bool{}}
				for _, f := range tt.fail {
					rec.fail[f] = true
				}
				res := g.Walk(context.Background(), WalkOptions{Parallelism: parallelism}, rec.fn)

				if got, want := walkFailed(res), sorted(tt.fail); !slices.Equal(got, want) {
					t.Errorf("Failed() = %v, want %v", got, want)
				}
				for _, f := range tt.fail {
					if res.Errors[f] == nil || res.Errors[f].Error() != f+" broke" {
						t.Errorf("Errors[%s] = %v", f, res.Errors[f])
					}
				}
				if !maps.Equal(res.Skipped, tt.wantSkipped) {
					t.Errorf("Skipped = %v, want %v", res.Skipped, tt.wantSkipped)
				}
				if got := sorted(res.Done); !slices.Equal(got, tt.wantDone) {
					t.Errorf("Done = %v, want %v", got, tt.wantDone)
				}
				for _, c := range rec.calls {
					if _, skipped := tt.wantSkipped[c]; skipped {
						t.Errorf("skipped vertex %s was run", c)
					}
				}
				if len(res.NotStarted) != 0 {
					t.Errorf("NotStarted = %v, want none", res.NotStarted)
				}
			})
		}
	}
}

func TestWalkKeepsRunningSiblingsAfterFailure(t *testing.T) {
	// pki.ca fails at once while host.w0 is still busy; host.w0 and the
	// kubelet that waits for it must still run to completion.
	g := build(t, []string{"pki.ca", "host.w0", "service.kubelet", "cert.api"},
		[]edge{{"service.kubelet", "host.w0"}, {"cert.api", "pki.ca"}})
	rec := &recorder{
		fail: map[string]bool{"pki.ca": true},
		slow: map[string]time.Duration{"host.w0": 30 * time.Millisecond},
	}
	res := g.Walk(context.Background(), WalkOptions{Parallelism: 4}, rec.fn)
	if got, want := res.Done, []string{"host.w0", "service.kubelet"}; !slices.Equal(got, want) {
		t.Fatalf("Done = %v, want %v", got, want)
	}
	if got := res.Skipped; !maps.Equal(got, map[string]string{"cert.api": "pki.ca"}) {
		t.Fatalf("Skipped = %v", got)
	}
}

func TestWalkStop(t *testing.T) {
	t.Run("closed before the walk: nothing runs", func(t *testing.T) {
		g := clusterGraph(t)
		stop := make(chan struct{})
		close(stop)
		rec := &recorder{}
		res := g.Walk(context.Background(), WalkOptions{Stop: stop}, rec.fn)
		if len(rec.calls) != 0 || len(res.Done) != 0 {
			t.Fatalf("ran %v after Stop", rec.calls)
		}
		if !slices.Equal(res.NotStarted, g.Names()) {
			t.Fatalf("NotStarted = %v, want all in insertion order", res.NotStarted)
		}
	})

	t.Run("closed mid-walk: running fns finish, nothing new starts", func(t *testing.T) {
		g := build(t,
			[]string{"slow", "trigger", "r1", "r2", "r3", "after-slow"},
			[]edge{{"after-slow", "slow"}})
		stop := make(chan struct{})
		var slowFinished atomic.Bool
		var calls atomic.Int32
		res := g.Walk(context.Background(), WalkOptions{Parallelism: 2, Stop: stop}, func(_ context.Context, name string) error {
			calls.Add(1)
			switch name {
			case "trigger":
				close(stop)
			case "slow":
				<-stop
				time.Sleep(20 * time.Millisecond)
				slowFinished.Store(true)
			}
			return nil
		})
		if !slowFinished.Load() {
			t.Fatalf("Walk returned before the running fn finished")
		}
		if calls.Load() != 2 {
			t.Fatalf("%d fns ran, want 2 (slow, trigger)", calls.Load())
		}
		if got := sorted(res.Done); !slices.Equal(got, []string{"slow", "trigger"}) {
			t.Fatalf("Done = %v", got)
		}
		if want := []string{"r1", "r2", "r3", "after-slow"}; !slices.Equal(res.NotStarted, want) {
			t.Fatalf("NotStarted = %v, want %v", res.NotStarted, want)
		}
		if err := walkErr(res); err == nil || err.Error() != "4 not started because the walk was stopped" {
			t.Fatalf("walkErr = %v", err)
		}
	})
}

func TestWalkContextCancel(t *testing.T) {
	g := build(t, []string{"watch", "cancel", "r1", "r2", "after"}, []edge{{"after", "cancel"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *WalkResult)
	go func() {
		done <- g.Walk(ctx, WalkOptions{Parallelism: 2}, func(ctx context.Context, name string) error {
			switch name {
			case "watch":
				<-ctx.Done() // abandons its work when cancelled
				return ctx.Err()
			case "cancel":
				cancel()
			}
			return nil
		})
	}()
	var res *WalkResult
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Walk did not return after its context was cancelled")
	}
	if !errors.Is(res.Errors["watch"], context.Canceled) {
		t.Fatalf("Errors[watch] = %v, want context.Canceled", res.Errors["watch"])
	}
	if !slices.Equal(res.Done, []string{"cancel"}) {
		t.Fatalf("Done = %v", res.Done)
	}
	if want := []string{"r1", "r2", "after"}; !slices.Equal(res.NotStarted, want) {
		t.Fatalf("NotStarted = %v, want %v", res.NotStarted, want)
	}
}

func TestWalkRecoversPanics(t *testing.T) {
	g := build(t, []string{"ok", "boom", "after-boom"}, []edge{{"after-boom", "boom"}})
	res := g.Walk(context.Background(), WalkOptions{}, func(_ context.Context, name string) error {
		if name == "boom" {
			panic("kaboom")
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(res.Errors["boom"], &pe) {
		t.Fatalf("Errors[boom] = %#v, want *PanicError", res.Errors["boom"])
	}
	if pe.Value != "kaboom" || pe.Vertex != "boom" || pe.Error() != "panic: kaboom" {
		t.Fatalf("PanicError = %+v (%q)", pe, pe.Error())
	}
	if !strings.Contains(string(pe.Stack), "TestWalkRecoversPanics") {
		t.Fatalf("stack does not show the panicking fn:\n%s", pe.Stack)
	}
	if !slices.Equal(res.Done, []string{"ok"}) || res.Skipped["after-boom"] != "boom" {
		t.Fatalf("Done = %v, Skipped = %v", res.Done, res.Skipped)
	}
	if got, want := walkErr(res).Error(), "boom: panic: kaboom\n1 skipped because a dependency failed"; got != want {
		t.Fatalf("Err() = %q, want %q", got, want)
	}
}

func TestWalkSurvivesGoexit(t *testing.T) {
	g := build(t, []string{"exits", "fine"}, nil)
	res := g.Walk(context.Background(), WalkOptions{}, func(_ context.Context, name string) error {
		if name == "exits" {
			runtime.Goexit()
		}
		return nil
	})
	if !errors.Is(res.Errors["exits"], errGoexit) || !slices.Equal(res.Done, []string{"fine"}) {
		t.Fatalf("Errors = %v, Done = %v", res.Errors, res.Done)
	}
}

func TestWalkRefusesCycles(t *testing.T) {
	g := build(t, []string{"a", "b", "c"}, []edge{{"a", "b"}, {"b", "a"}, {"c", "a"}})
	rec := &recorder{}
	res := g.Walk(context.Background(), WalkOptions{}, rec.fn)
	if len(rec.calls) != 0 {
		t.Fatalf("ran %v on a cyclic graph", rec.calls)
	}
	if res.Cycle == nil || walkErr(res).Error() != "cycle: a → b → a" || walkOK(res) {
		t.Fatalf("Cycle = %v, walkErr = %v", res.Cycle, walkErr(res))
	}
}

func TestWalkEmptyGraph(t *testing.T) {
	res := New().Walk(context.Background(), WalkOptions{}, (&recorder{}).fn)
	if !walkOK(res) || walkErr(res) != nil {
		t.Fatalf("empty walk: %v", walkErr(res))
	}
}
