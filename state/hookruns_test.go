package state

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHookRunsBoundedAndRoundTrip(t *testing.T) {
	s := New()
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 0; i < MaxHookRuns+5; i++ {
		s.AddHookRun(HookRun{Hook: "h", Node: "w1", Operator: "join", Event: "pre-join", Decision: "ok", Start: start, Finish: start,
			Attempts: []HookAttempt{{N: 1, ExitCode: 0}}})
	}
	if len(s.HookRuns) != MaxHookRuns {
		t.Fatalf("kept %d runs, want %d", len(s.HookRuns), MaxHookRuns)
	}
	if first, last := s.HookRuns[0].ID, s.HookRuns[MaxHookRuns-1].ID; first != "6" || last != strconv.Itoa(MaxHookRuns+5) {
		t.Fatalf("ids %s..%s: the oldest should have gone", first, last)
	}
	big := make([]byte, MaxHookOutput*2)
	for i := range big {
		big[i] = 'x'
	}
	r := s.AddHookRun(HookRun{Hook: "big", Output: string(big), Decision: "abort", Error: "exit status 3"})
	if len(r.Output) > MaxHookOutput+len("…") {
		t.Fatalf("output tail not bounded: %d bytes", len(r.Output))
	}
	back, err := Decode(Encode(s), "eggo.state")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.HookRuns) != MaxHookRuns || back.HookRuns[MaxHookRuns-1].Hook != "big" || back.HookRuns[0].Attempts[0].N != 1 || !back.HookRuns[0].Start.Equal(start) {
		t.Fatalf("hook runs did not round-trip: %+v", back.HookRuns[0])
	}
	if got, ok := back.HookRunByID(r.ID); !ok || got.Error != "exit status 3" {
		t.Fatalf("HookRunByID(%s) = %+v, %v", r.ID, got, ok)
	}
}

func TestDeployPendingRoundTrips(t *testing.T) {
	s := New()
	if back, err := Decode(Encode(s), "eggo.state"); err != nil || back.DeployPending {
		t.Fatalf("a new state is not deploying: %v %v", back, err)
	}
	s.DeployPending = true
	back, err := Decode(Encode(s), "eggo.state")
	if err != nil || !back.DeployPending {
		t.Fatalf("deploy_pending lost: %v", err)
	}
	if _, err := Decode([]byte(`{"format_version": 1, "serial": 1, "lineage": "x", "eggo_version": "0", "resources": [], "deploy_pending": "yes"}`), "eggo.state"); err == nil ||
		!strings.Contains(err.Error(), "deploy_pending") {
		t.Fatalf("a non-boolean deploy_pending must be refused by name: %v", err)
	}
}
