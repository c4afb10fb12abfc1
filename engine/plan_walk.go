package engine

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// planAll decides the steps of order (a dependency order) on every core:
// a step is decided once the steps it depends on are, since it resolves
// its references against them. Deciding a thousand nodes' steps one after
// another left a core idle for a third of a plan. The answer is the one
// a walk in order gives: the steps and the uncompared in order, and the
// first error in order (every step is decided, so which one failed first
// in time does not matter).
func (d *differ) planAll(ctx context.Context, order []string) ([]*Step, []string, error) {
	n := len(order)
	index := make(map[string]int32, n)
	for i, addr := range order {
		index[addr] = int32(i)
	}
	waiting := make([]atomic.Int32, n)
	dependents := make([][]int32, n)
	for i, addr := range order {
		for _, dep := range d.g.DependenciesOf(addr) {
			if j, ok := index[dep]; ok {
				waiting[i].Add(1)
				dependents[j] = append(dependents[j], int32(i))
			}
		}
	}
	steps := make([]*Step, n)
	uncompared := make([]bool, n)
	errs := make([]error, n)
	ready := make(chan int32, n)
	for i := range waiting {
		if waiting[i].Load() == 0 {
			ready <- int32(i)
		}
	}
	var decided atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ready {
				steps[i], uncompared[i], errs[i] = d.step(ctx, order[i])
				for _, j := range dependents[i] {
					if waiting[j].Add(-1) == 0 {
						ready <- j
					}
				}
				if decided.Add(1) == int32(n) {
					close(ready)
				}
			}
		}()
	}
	wg.Wait()
	var out []string
	for i, err := range errs {
		if err != nil {
			return nil, nil, err
		}
		if uncompared[i] {
			out = append(out, order[i])
		}
	}
	return steps, out, nil
}
