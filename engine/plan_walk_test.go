package engine

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// meetingKind is the test kind whose Plan of test.a and test.b waits for
// the other's to begin, and whose Plan of test.c (which refers to test.a)
// notes whether test.a's had returned.
type meetingKind struct {
	*testKind
	met      sync.WaitGroup
	mu       sync.Mutex
	aDone    bool
	cSawA    bool
	failWith map[string]error
}

func (k *meetingKind) Plan(ctx context.Context, rc *resources.RunContext, prior *resources.Object, d resources.Desired) (resources.Change, error) {
	if err := k.failWith[d.Addr]; err != nil {
		return resources.Change{}, err
	}
	switch d.Addr {
	case "test.a", "test.b":
		if k.failWith != nil {
			break
		}
		if !meets(&k.met) {
			return resources.Change{}, errors.New(d.Addr + " was planned alone: the steps are decided one at a time")
		}
	case "test.c":
		k.mu.Lock()
		k.cSawA = k.aDone
		k.mu.Unlock()
	}
	ch, err := k.testKind.Plan(ctx, rc, prior, d)
	if d.Addr == "test.a" {
		k.mu.Lock()
		k.aDone = true
		k.mu.Unlock()
	}
	return ch, err
}

// meets says whether the others counted in met arrive within 5 s of this
// caller (which counts itself done).
func meets(met *sync.WaitGroup) bool {
	met.Done()
	all := make(chan struct{})
	go func() { met.Wait(); close(all) }()
	select {
	case <-all:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// TestPlanDecidesStepsOnEveryCore: two steps that do not depend on each
// other are decided at the same time; a step waits for the step it
// refers to; the plan is the one a walk in order gives, and so is its
// error when several steps fail.
func TestPlanDecidesStepsOnEveryCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	r := newRig(t)
	k := &meetingKind{testKind: r.kind}
	k.met.Add(2)
	o := r.opts()
	o.Kinds = []resources.Kind{k}
	ds := []resources.Desired{
		desired("test.a", resources.Attrs{"value": "a"}),
		desired("test.b", resources.Attrs{"value": "b"}),
		desired("test.c", resources.Attrs{"value": resources.Ref{Addr: "test.a", Attr: "value"}}),
	}
	p := r.plan(o, ds...)
	if got := actions(p); len(got) != 3 || got["test.c"] != resources.Create {
		t.Fatalf("plan = %v", got)
	}
	if !k.cSawA {
		t.Error("test.c was planned before test.a, which it refers to, was decided")
	}
	if c := p.Step("test.c"); c.After["value"] != "a" {
		t.Errorf("test.c's value = %v, want test.a's planned value", c.After["value"])
	}

	// Two steps fail: the error is the first in order, every time.
	k.failWith = map[string]error{"test.b": errors.New("b fails"), "test.c": errors.New("c fails")}
	var first string
	for i := range 20 {
		prior, err := o.readState()
		if err != nil {
			t.Fatal(err)
		}
		_, err = planDesired(context.Background(), o, ds, prior)
		if err == nil {
			t.Fatal("no error")
		}
		if i == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("the error changed between runs: %q, then %q", first, err)
		}
	}
}
