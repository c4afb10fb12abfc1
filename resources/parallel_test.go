package resources

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestEachInParallelUsesEveryCore: a large loop runs on two cores at once
// (two calls meet); a small one runs in order on the caller's goroutine.
func TestEachInParallelUsesEveryCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var met sync.WaitGroup
	met.Add(2)
	errs := make([]error, 4*parallelFrom)
	EachInParallel(len(errs), func(i int) {
		if i > 1 {
			return
		}
		met.Done()
		done := make(chan struct{})
		go func() { met.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			errs[i] = errors.New("ran alone")
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("the first two calls of a large loop did not run at the same time: %v", err)
	}
	var order []int
	EachInParallel(parallelFrom-1, func(i int) { order = append(order, i) })
	for i, v := range order {
		if v != i {
			t.Fatalf("a small loop ran out of order: %v", order)
		}
	}
}
