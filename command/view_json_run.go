package command

import (
	"fmt"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// The JSON view observes runs itself: every refresh, start, step and end
// is a line, while planning as well as applying.

func (v *jsonView) PlanObserver() runObserver { return v }

func (v *jsonView) Refreshing(addr string) {
	v.emit(refreshStartMsg{Type: "refresh_start", Address: addr})
}

func (v *jsonView) PreApply(c *resources.Change) {
	v.emit(applyStartMsg{Type: "apply_start", Address: c.Addr, Action: c.Action, Node: c.Node})
}

func (v *jsonView) Progress(addr, msg string) {
	v.emit(applyProgressMsg{Type: "apply_progress", Address: addr, Message: msg})
}

func (v *jsonView) PostApply(c *resources.Change, err error, took time.Duration) {
	if err != nil {
		v.emit(applyErroredMsg{Type: "apply_errored", Address: c.Addr, Action: c.Action, ElapsedSeconds: took.Seconds(), Error: err.Error()})
		return
	}
	v.emit(applyCompleteMsg{Type: "apply_complete", Address: c.Addr, Action: c.Action, ElapsedSeconds: took.Seconds()})
}

// Applying needs no separator and no heartbeat: every event is a line.
func (v *jsonView) Applying() func() { return func() {} }

// Summary emits the continued hooks' warnings, the counts, then an error
// for each failed resource.
func (v *jsonView) Summary(op string, p *engine.Plan, r *engine.Result) {
	for _, w := range r.HookWarnings {
		v.diagnostic("warning", "hook failed; its policy continued", w, nil)
	}
	v.emit(applySummaryMsg{Type: "apply_summary", Operation: op, Add: r.Counts.Add, Change: r.Counts.Change,
		Destroy: r.Counts.Destroy, Failed: len(r.Failed), Skipped: len(r.Skipped), NotStarted: len(r.NotStarted),
		ElapsedSeconds: r.Took.Seconds(), Connections: r.Connections, RemoteWrites: r.Writes, BytesUploaded: r.Bytes})
	for _, f := range r.Failures(p) {
		v.diagnostic("error", fmt.Sprintf("%s failed", f.Addr), f.Err.Error(), nil)
	}
}

func (v *jsonView) Valid(nodes int, unset []string) {
	if unset == nil {
		unset = []string{}
	}
	v.emit(validMsg{Type: "valid", Nodes: nodes, UnsetVariables: unset})
}
