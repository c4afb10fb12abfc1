package engine

import (
	"reflect"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// An upgrade of existing resources rolls: etcd members one at a time, then
// control-plane nodes one at a time, then workers two at a time; a create
// is never held back, and a failure stops the roll.
func TestRollingUpdateOrder(t *testing.T) {
	r := newRig(t)
	roll := func(d resources.Desired, group string, stage int, unit string, batch int) resources.Desired {
		d.Roll = &resources.Roll{Group: group, Stage: stage, Unit: unit, Batch: batch}
		return d
	}
	ds := func(version string, fail string) []resources.Desired {
		a := func(addr string) resources.Attrs {
			attrs := resources.Attrs{"version": version}
			if addr == fail {
				attrs["fail"] = true
			}
			return attrs
		}
		return []resources.Desired{
			roll(desired("test.etcd-a", a("test.etcd-a")), "etcd", 0, "a", 1),
			roll(desired("test.etcd-b", a("test.etcd-b")), "etcd", 0, "b", 1),
			roll(desired("test.api-a", a("test.api-a")), "control-plane", 1, "a", 1),
			roll(desired("test.sched-a", a("test.sched-a")), "control-plane", 1, "a", 1),
			roll(desired("test.api-b", a("test.api-b")), "control-plane", 1, "b", 1),
			roll(desired("test.kubelet-w0", a("test.kubelet-w0")), "workers", 2, "w0", 2),
			roll(desired("test.kubelet-w1", a("test.kubelet-w1")), "workers", 2, "w1", 2),
			roll(desired("test.kubelet-w2", a("test.kubelet-w2")), "workers", 2, "w2", 2),
		}
	}
	p := r.plan(r.opts(), ds("1", "")...)
	for _, s := range p.Steps {
		if len(s.WaitsFor) != 0 {
			t.Fatalf("create of %s waits for %v: a new cluster must come up in parallel", s.Addr, s.WaitsFor)
		}
	}
	if res := r.apply(r.opts(), p); !res.OK() {
		t.Fatal(res.Failed)
	}

	p = r.plan(r.opts(), ds("2", "")...)
	want := map[string][]string{
		"test.etcd-a":     nil,
		"test.etcd-b":     {"test.etcd-a"},
		"test.api-a":      {"test.etcd-a", "test.etcd-b"},
		"test.sched-a":    {"test.etcd-a", "test.etcd-b"},
		"test.api-b":      {"test.api-a", "test.sched-a"},
		"test.kubelet-w0": {"test.api-a", "test.api-b", "test.etcd-a", "test.etcd-b", "test.sched-a"},
		"test.kubelet-w1": {"test.api-a", "test.api-b", "test.etcd-a", "test.etcd-b", "test.sched-a"},
		"test.kubelet-w2": {"test.kubelet-w0", "test.kubelet-w1"},
	}
	for addr, deps := range want {
		if got := p.Step(addr).WaitsFor; !(len(got) == 0 && len(deps) == 0) && !reflect.DeepEqual(got, deps) {
			t.Errorf("%s waits for %v, want %v", addr, got, deps)
		}
	}

	// The second control-plane node fails: the roll stops there, the
	// workers keep their old version.
	p = r.plan(r.opts(), ds("3", "test.api-b")...)
	res := r.apply(r.opts(), p)
	if _, failed := res.Failed["test.api-b"]; !failed {
		t.Fatalf("api-b did not fail: %v", res.Failed)
	}
	for _, w := range []string{"test.kubelet-w0", "test.kubelet-w1", "test.kubelet-w2"} {
		if _, skipped := res.Skipped[w]; !skipped {
			t.Errorf("%s was not held back after the failure (skipped: %v)", w, res.Skipped)
		}
	}
}

// A member joining a group rolls after the members already in it, whatever
// the names: a stopped etcd member is repaired before a new one is added.
func TestRollingJoinAfterRepair(t *testing.T) {
	r := newRig(t)
	etcd := func(addr, unit string, attrs resources.Attrs) resources.Desired {
		d := desired(addr, attrs)
		d.Roll = &resources.Roll{Group: "etcd", Stage: 0, Unit: unit, Batch: 1}
		return d
	}
	p := r.plan(r.opts(), etcd("test.m-b", "b", resources.Attrs{"v": "1"}), etcd("test.m-c", "c", resources.Attrs{"v": "1"}))
	if res := r.apply(r.opts(), p); !res.OK() {
		t.Fatal(res.Failed)
	}
	// b is repaired (its attributes move), a joins: a sorts first by name.
	p = r.plan(r.opts(),
		etcd("test.m-a", "a", resources.Attrs{"v": "1", "join": true}),
		etcd("test.m-b", "b", resources.Attrs{"v": "repaired"}),
		etcd("test.m-c", "c", resources.Attrs{"v": "1"}))
	if got := p.Step("test.m-a").WaitsFor; !reflect.DeepEqual(got, []string{"test.m-b"}) {
		t.Errorf("the join of a waits for %v, want the repair of b first", got)
	}
	if got := p.Step("test.m-b").WaitsFor; len(got) != 0 {
		t.Errorf("the repair of b waits for %v, want nothing", got)
	}
}
