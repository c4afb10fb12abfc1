package engine

import (
	"reflect"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// A resource on a host that cannot be reached fails its delete, named;
// with -force it leaves the state without the host being touched.
func TestForceDropsUnreachableDeletes(t *testing.T) {
	r := newRig(t)
	p := r.plan(r.opts(), desired("test.dead", resources.Attrs{"unreachable": true}), desired("test.ok", nil))
	if res := r.apply(r.opts(), p); !res.OK() {
		t.Fatal(res.Failed)
	}
	p = r.plan(r.opts(), desired("test.ok", nil))
	res := r.apply(r.opts(), p)
	if err := res.Failed["test.dead"]; err == nil || !resources.IsUnreachable(err) {
		t.Fatalf("delete of an unreachable host's resource: %v", res.Failed)
	}
	if got := stateAddrs(t, r.state); !reflect.DeepEqual(got, []string{"test.dead(pending)", "test.ok"}) {
		t.Fatalf("state after the failed delete: %v", got)
	}

	o := r.opts()
	o.Force = true
	p = r.plan(o, desired("test.ok", nil))
	if !p.Force {
		t.Fatal("the plan does not carry -force (a saved plan would lose it)")
	}
	if res := r.apply(o, p); !res.OK() {
		t.Fatalf("-force: %v", res.Failed)
	}
	if got := stateAddrs(t, r.state); !reflect.DeepEqual(got, []string{"test.ok"}) {
		t.Fatalf("state after -force: %v", got)
	}
}
