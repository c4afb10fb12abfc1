package state

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// MaxHookRuns bounds the hook runs a state keeps: the newest are kept, the
// full history lives in the audit log beside the state (STATE.hooks.log).
const MaxHookRuns = 200

// MaxHookOutput bounds the output tail one run keeps in state; the audit
// log keeps what the runner returned.
const MaxHookOutput = 4 << 10

// HookRun is the record of one run of one hook on one node (or once for the
// cluster): what ran, when, how it ended and what the operation did next.
// It never holds environment or header values: the output is what the
// hook printed.
type HookRun struct {
	ID       string    `json:"id"`       // increasing number, unique within a lineage
	Hook     string    `json:"hook"`     // the hook block's name
	Address  string    `json:"address"`  // the plan step, hook.NAME["pre-join/w1"]
	Node     string    `json:"node"`     // where it ran
	Operator string    `json:"operator"` // deploy | join | delete | cleanup | upgrade
	Event    string    `json:"event"`    // pre-join …
	Type     string    `json:"type"`     // shell | web | prometheus
	Start    time.Time `json:"start"`
	Finish   time.Time `json:"finish"`
	// Attempts of a shell hook (a check hook has one run of measurements).
	Attempts []HookAttempt `json:"attempts,omitempty"`
	// Phase and Measurements of a check hook.
	Phase        string            `json:"phase,omitempty"`
	Measurements []HookMeasurement `json:"measurements,omitempty"`
	Output       string            `json:"output,omitempty"` // tail of the last attempt
	Decision     string            `json:"decision"`         // ok | abort | continue
	Error        string            `json:"error,omitempty"`
}

// HookAttempt is one attempt of a shell hook.
type HookAttempt struct {
	N        int       `json:"n"`
	Start    time.Time `json:"start"`
	Finish   time.Time `json:"finish"`
	ExitCode int       `json:"exit_code"` // -1: ended by a signal or never ran
	Signal   string    `json:"signal,omitempty"`
	TimedOut bool      `json:"timed_out,omitempty"`
	Script   string    `json:"script,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// HookMeasurement is one measurement of a check hook.
type HookMeasurement struct {
	Start   time.Time `json:"start"`
	Finish  time.Time `json:"finish"`
	Value   string    `json:"value,omitempty"`
	Phase   string    `json:"phase"`
	Message string    `json:"message,omitempty"`
}

// AddHookRun records r with the next ID and returns it as stored. The
// list is rebuilt, never appended to in place: a writer may be encoding the
// previous one without the lock (see engine's recorder).
func (s *State) AddHookRun(r HookRun) HookRun {
	var last uint64
	if n := len(s.HookRuns); n > 0 {
		last, _ = strconv.ParseUint(s.HookRuns[n-1].ID, 10, 64)
	}
	r.ID = strconv.FormatUint(last+1, 10)
	if len(r.Output) > MaxHookOutput {
		r.Output = "…" + r.Output[len(r.Output)-MaxHookOutput:]
	}
	keep := s.HookRuns
	if len(keep) >= MaxHookRuns {
		keep = keep[len(keep)-MaxHookRuns+1:]
	}
	runs := make([]HookRun, 0, len(keep)+1)
	runs = append(append(runs, keep...), r)
	s.HookRuns = runs
	return r
}

// HookRunByID finds a recorded run.
func (s *State) HookRunByID(id string) (HookRun, bool) {
	for _, r := range s.HookRuns {
		if r.ID == id {
			return r, true
		}
	}
	return HookRun{}, false
}

// decodeHookRuns reads the hook_runs member from its generic JSON form.
func decodeHookRuns(v any) ([]HookRun, error) {
	if v == nil {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var runs []HookRun
	if err := json.Unmarshal(data, &runs); err != nil {
		return nil, fmt.Errorf("hook_runs: %v", err)
	}
	return runs, nil
}
