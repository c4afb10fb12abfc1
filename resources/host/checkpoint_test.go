package host

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// TestHostCheckpointIsWriteAhead simulates a kill -9 right after the host
// recorded its intent and before it changed anything: a Delete from the
// checkpointed attributes must leave the host exactly as it was.
func TestHostCheckpointIsWriteAhead(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("amd64", "opt/new/bin/tool", "tool", 0o755)
		f.bundle("amd64", "etc/app.conf", "eggo's", 0o644)
		f.onHost("etc/app.conf", "operator's")
		d := f.desired(f.cluster(typ, "m0"))

		r := newHostRun(t)
		var mu sync.Mutex
		var checkpoints []resources.Attrs
		r.Checkpoint = func(addr string, a resources.Attrs) error {
			mu.Lock()
			defer mu.Unlock()
			if addr != "host.m0" {
				t.Errorf("checkpoint for %s", addr)
			}
			checkpoints = append(checkpoints, resourcestest.ViaState(t, a))
			return nil
		}
		if _, _, err := f.apply(r, nil, d); err != nil {
			t.Fatal(err)
		}
		if len(checkpoints) != 1 {
			t.Fatalf("%d checkpoints, want 1 (one write-ahead record per apply)", len(checkpoints))
		}
		intent := f.createdPaths(checkpoints[0])
		for _, want := range []string{"dir /opt/new", "dir /opt/new/bin", "file /opt/new/bin/tool"} {
			found := false
			for _, c := range intent {
				found = found || c == want
			}
			if !found {
				t.Errorf("checkpoint lacks %q: %v", want, intent)
			}
		}
		if rep, _ := checkpoints[0][hostReplaced].([]any); len(rep) != 1 {
			t.Fatalf("checkpoint replaced = %v, want the move of etc/app.conf", checkpoints[0][hostReplaced])
		}

		// Crash right after the checkpoint: undo the apply by hand as if
		// it never ran, then Delete from the checkpoint alone.
		f2 := newHostFixture(t)
		f2.bundle("amd64", "opt/new/bin/tool", "tool", 0o755)
		f2.bundle("amd64", "etc/app.conf", "eggo's", 0o644)
		f2.onHost("etc/app.conf", "operator's")
		before2 := f2.snapshot()
		r2 := newHostRun(t)
		var intent2 resources.Attrs
		ctx, cancel := context.WithCancel(context.Background())
		r2.Checkpoint = func(_ string, a resources.Attrs) error { intent2 = resourcestest.ViaState(t, a); cancel(); return nil } // the "crash"
		d2 := f2.desired(f2.cluster(typ, "m0"))
		ch, err := f2.host.Plan(ctx, r2.RunContext, nil, d2)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f2.host.Create(ctx, r2.RunContext, d2, ch)
		if intent2 == nil {
			t.Fatal("no checkpoint before the first change")
		}
		if _, err := f2.delete(newHostRun(t), intent2); err != nil {
			t.Fatalf("delete from the write-ahead record: %v", err)
		}
		if after := f2.snapshot(); after != before2 {
			t.Fatalf("host not as before:\n%s\nwant:\n%s", after, before2)
		}
	})
}

// When the write-ahead record cannot be written, the host is not touched.
func TestHostStopsWhenCheckpointFails(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "opt/new/bin/tool", "tool", 0o755)
	before := f.snapshot()
	r := newHostRun(t)
	r.Checkpoint = func(string, resources.Attrs) error { return errors.New("disk full") }
	d := f.desired(f.cluster("local", "m0"))
	ch, err := f.host.Plan(context.Background(), r.RunContext, nil, d)
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := f.host.Create(context.Background(), r.RunContext, d, ch)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if attrs != nil {
		t.Fatalf("attrs = %v, want nil: nothing was changed", attrs)
	}
	if after := f.snapshot(); after != before {
		t.Fatal("host changed although its write-ahead record failed")
	}
}
