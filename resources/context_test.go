package resources

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoRunsOncePerKeyForConcurrentCallers(t *testing.T) {
	rc := NewRunContext(nil, nil)
	var calls atomic.Int64
	release := make(chan struct{})
	fn := func() (any, error) {
		calls.Add(1)
		<-release // every other caller arrives while this one is still running
		return "nodes", nil
	}
	const callers = 50
	var wg sync.WaitGroup
	got := make([]any, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := rc.Memo("k8s_node/list", fn)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("fn ran %d times for %d concurrent callers of one key, want 1", n, callers)
	}
	for i, v := range got {
		if v != "nodes" {
			t.Fatalf("caller %d got %v, want the one call's value", i, v)
		}
	}

	// Another key is another question; a new run asks again.
	if v, _ := rc.Memo("other", func() (any, error) { return 2, nil }); v != 2 {
		t.Errorf("another key got %v, want its own value", v)
	}
	next := NewRunContext(nil, nil)
	if _, err := next.Memo("k8s_node/list", func() (any, error) { calls.Add(1); return nil, nil }); err != nil || calls.Load() != 2 {
		t.Errorf("a new run reused the previous run's memo (calls %d, err %v)", calls.Load(), err)
	}
}

func TestMemoKeepsAnError(t *testing.T) {
	rc := &RunContext{} // a zero RunContext (as a test might build) works too
	boom := errors.New("no master reachable")
	calls := 0
	for range 3 {
		_, err := rc.Memo("k", func() (any, error) { calls++; return nil, boom })
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the call's error", err)
		}
	}
	if calls != 1 {
		t.Errorf("a failed fn ran %d times in one run, want 1", calls)
	}
}

func TestMemoPanicReleasesWaiters(t *testing.T) {
	rc := NewRunContext(nil, nil)
	started := make(chan struct{})
	go func() {
		defer func() { _ = recover() }()
		_, _ = rc.Memo("k", func() (any, error) {
			close(started)
			time.Sleep(10 * time.Millisecond)
			panic("bug")
		})
	}()
	<-started
	done := make(chan error, 1)
	go func() {
		_, err := rc.Memo("k", func() (any, error) { return nil, fmt.Errorf("must not run") })
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || err.Error() != "k: internal error: bug" {
			t.Errorf("waiter got %v, want the panic as an error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a panic in fn left a waiter blocked")
	}
}
