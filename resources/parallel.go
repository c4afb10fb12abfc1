package resources

import (
	"runtime"
	"sync"
)

// parallelFrom is the number of items from which EachInParallel uses
// every core: below it, starting goroutines costs more than it saves.
const parallelFrom = 64

// EachInParallel calls fn(i) for every i below n, on every core when n is
// large (a node block's thousand instances, a kind's thousand nodes). fn
// must write only what belongs to i: the caller reads the results in
// order afterwards, so the outcome is that of a loop.
func EachInParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/parallelFrom+1)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
