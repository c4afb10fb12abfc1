package engine

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// meetingExpander is a kind whose Expand waits for the other kinds' to
// begin (or fails with err).
type meetingExpander struct {
	*testKind
	met *sync.WaitGroup
	err error
}

func (k meetingExpander) Name() string { return k.testKind.name }

func (k meetingExpander) Expand(*resources.Cluster) ([]resources.Desired, error) {
	if k.err != nil {
		return nil, k.err
	}
	if !meets(k.met) {
		return nil, errors.New(k.name + " expanded alone: the kinds expand one at a time")
	}
	return []resources.Desired{{Addr: k.name + ".x", Kind: k.name}}, nil
}

// TestKindsExpandOnEveryCore: kinds expand at the same time; the answer is
// in kind order, and the error is the first kind's in order.
func TestKindsExpandOnEveryCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var met sync.WaitGroup
	met.Add(2)
	a := meetingExpander{testKind: &testKind{name: "alpha"}, met: &met}
	b := meetingExpander{testKind: &testKind{name: "beta"}, met: &met}
	ds, err := expand([]resources.Kind{b, a}, &resources.Cluster{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Addr != "beta.x" || ds[1].Addr != "alpha.x" {
		t.Fatalf("expanded %v, want beta's then alpha's", ds)
	}
	a.err, b.err = errors.New("alpha fails"), errors.New("beta fails")
	for range 20 {
		if _, err := expand([]resources.Kind{b, a}, &resources.Cluster{}); err == nil || err.Error() != "beta fails" {
			t.Fatalf("error %v, want beta's (the first kind's)", err)
		}
	}
}
