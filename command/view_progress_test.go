package command

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// TestProgressHeartbeat: a change still running is reported with its
// elapsed time and last step; a finished one no longer is.
func TestProgressHeartbeat(t *testing.T) {
	var out bytes.Buffer
	v := newProgressView(&out, colorizer(false))
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v.now = func() time.Time { return clock }
	c := &resources.Change{Addr: "host.m0", Action: resources.Create}
	v.PreApply(c)
	v.Progress("host.m0", "copying etcd (21.0 MB)")
	clock = clock.Add(12 * time.Second)
	v.beat()
	if !strings.Contains(out.String(), "host.m0: Still creating... [12s elapsed] copying etcd (21.0 MB)") {
		t.Fatalf("heartbeat line missing:\n%s", out.String())
	}
	v.PostApply(c, nil, 12*time.Second)
	out.Reset()
	v.beat()
	if out.Len() != 0 {
		t.Fatalf("finished change still reported: %q", out.String())
	}
}

// TestProgressNamesHookSteps: a hook step reads "Running..." and "Run
// complete", like a resource's own verbs, never an empty verb.
func TestProgressNamesHookSteps(t *testing.T) {
	var out bytes.Buffer
	v := newProgressView(&out, colorizer(false))
	c := &resources.Change{Addr: `hook.drain["pre-join/w1"]`, Action: engine.HookRunAction}
	v.PreApply(c)
	v.beat()
	v.PostApply(c, nil, 2*time.Second)
	for _, want := range []string{`hook.drain["pre-join/w1"]: Running...`, `hook.drain["pre-join/w1"]: Still running... [`, `hook.drain["pre-join/w1"]: Run complete after 2s`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
