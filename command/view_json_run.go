package command

import (
	"fmt"
	"time"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// The JSON view observes runs itself: every refresh, start, step and end
// is a line, while planning as well as applying.

func (v *jsonView) PlanObserver() runObserver { return v }

func (v *jsonView) Refreshing(addr string) {
	v.emit(jsonmsg.RefreshStart{Type: jsonmsg.TypeRefreshStart, Address: addr})
}

func (v *jsonView) PreApply(c *resources.Change) {
	v.emit(jsonmsg.ApplyStart{Type: jsonmsg.TypeApplyStart, Address: c.Addr, Action: string(c.Action), Node: c.Node})
}

func (v *jsonView) Progress(addr, msg string) {
	v.emit(jsonmsg.ApplyProgress{Type: jsonmsg.TypeApplyProgress, Address: addr, Message: msg})
}

func (v *jsonView) PostApply(c *resources.Change, err error, took time.Duration) {
	if err != nil {
		v.emit(jsonmsg.ApplyErrored{Type: jsonmsg.TypeApplyErrored, Address: c.Addr, Action: string(c.Action), ElapsedSeconds: took.Seconds(), Error: err.Error()})
		return
	}
	v.emit(jsonmsg.ApplyComplete{Type: jsonmsg.TypeApplyComplete, Address: c.Addr, Action: string(c.Action), ElapsedSeconds: took.Seconds()})
}

// Applying needs no separator and no heartbeat: every event is a line.
func (v *jsonView) Applying() func() { return func() {} }

// Summary emits the continued hooks' warnings, the counts, then an error
// for each failed resource.
func (v *jsonView) Summary(op string, p *engine.Plan, r *engine.Result) {
	for _, w := range r.HookWarnings {
		v.diagnostic("warning", "hook failed; its policy continued", w, nil)
	}
	v.emit(jsonmsg.ApplySummary{Type: jsonmsg.TypeApplySummary, Operation: op, Add: r.Counts.Add, Change: r.Counts.Change,
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
	v.emit(jsonmsg.Valid{Type: jsonmsg.TypeValid, Nodes: nodes, UnsetVariables: unset})
}
