package command

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// jsonView writes one JSON object per line, like Terraform's machine-
// readable UI: every line has a "type".
type jsonView struct {
	mu  sync.Mutex
	out io.Writer
}

func (v *jsonView) emit(msg map[string]any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	b, _ := json.Marshal(msg)
	v.out.Write(append(b, '\n'))
}

// redacted copies attrs with sensitive values replaced.
func redacted(attrs resources.Attrs, sensitive []string) map[string]any {
	if attrs == nil {
		return nil
	}
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		if _, ok := v.(resources.Unknown); ok {
			v = unknownText
		}
		out[k] = v
	}
	for _, s := range sensitive {
		if _, ok := out[s]; ok {
			out[s] = sensitiveText
		}
	}
	return out
}

func (v *jsonView) plan(p *engine.Plan) {
	for _, w := range p.Warnings {
		v.emit(map[string]any{"type": "warning", "message": w})
	}
	for _, s := range p.Steps {
		if s.Action == resources.NoOp {
			continue
		}
		if h := s.Hook; h != nil {
			v.emit(map[string]any{
				"type": "planned_hook", "address": s.Addr, "hook": h.Name, "node": s.Node, "event": h.Event.String(),
				"operator": h.Event.Operation, "scope": h.Scope, "hook_type": h.Def.Type, "covers": h.Covers,
				"on_failure": h.Def.PolicyFor(h.Event.Operation), "waits_for": s.WaitsFor,
			})
			continue
		}
		v.emit(map[string]any{
			"type": "planned_change", "address": s.Addr, "kind": s.Kind, "node": s.Node,
			"action": s.Action, "reasons": s.Reasons, "changed": s.Changed,
			"before": redacted(s.Before, s.Sensitive), "after": redacted(s.After, s.Sensitive),
		})
	}
	v.stateChanges(p)
	c := p.Counts()
	v.emit(map[string]any{"type": "change_summary", "add": c.Add, "change": c.Change, "destroy": c.Destroy, "changes": p.HasChanges()})
}

func (v *jsonView) diagnostic(severity, summary, detail string) {
	v.emit(map[string]any{"type": "diagnostic", "severity": severity, "summary": summary, "detail": detail})
}

// Observer methods: apply progress.
func (v *jsonView) Refreshing(addr string) {
	v.emit(map[string]any{"type": "refresh_start", "address": addr})
}
func (v *jsonView) PreApply(c *resources.Change) {
	v.emit(map[string]any{"type": "apply_start", "address": c.Addr, "action": c.Action, "node": c.Node})
}
func (v *jsonView) Progress(addr, msg string) {
	v.emit(map[string]any{"type": "apply_progress", "address": addr, "message": msg})
}
func (v *jsonView) PostApply(c *resources.Change, err error, took time.Duration) {
	m := map[string]any{"type": "apply_complete", "address": c.Addr, "action": c.Action, "elapsed_seconds": took.Seconds()}
	if err != nil {
		m["type"] = "apply_errored"
		m["error"] = err.Error()
	}
	v.emit(m)
}

func (v *jsonView) summary(r *engine.Result, op string) {
	v.emit(map[string]any{"type": "apply_summary", "operation": op, "add": r.Counts.Add, "change": r.Counts.Change,
		"destroy": r.Counts.Destroy, "failed": len(r.Failed), "skipped": len(r.Skipped), "not_started": len(r.NotStarted),
		"elapsed_seconds": r.Took.Seconds(), "connections": r.Connections, "remote_writes": r.Writes, "bytes_uploaded": r.Bytes})
}
