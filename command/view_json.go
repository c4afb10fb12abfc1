package command

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// jsonView writes one JSON object per line, like Terraform's machine-
// readable UI: every line has a "type" (package jsonmsg declares them).
// It is locked because the engine reports progress from parallel changes.
type jsonView struct {
	mu  sync.Mutex
	out io.Writer
}

func (v *jsonView) emit(msg any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	b, _ := json.Marshal(msg)
	v.out.Write(append(b, '\n'))
}

// redacted copies attrs with sensitive values replaced.
// shownOutputs are the state's outputs as every view shows them: a
// sensitive one as "(sensitive value)" whether or not an identity opened
// it, so neither a readable secret is printed nor a sealed one vanishes.
func shownOutputs(st *state.State) map[string]any {
	if len(st.Outputs) == 0 && len(st.SensitiveOutputs) == 0 && len(st.SealedOutputs) == 0 {
		return nil
	}
	out := make(map[string]any, len(st.Outputs))
	for k, v := range st.Outputs {
		out[k] = v
	}
	for _, k := range st.SensitiveOutputs {
		out[k] = sensitiveValue{}
	}
	for k := range st.SealedOutputs {
		out[k] = sensitiveValue{}
	}
	return out
}

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
			out[s] = sensitiveValue{}
		}
	}
	return out
}

func (v *jsonView) Error(msg string) { v.diagnostic("error", msg, "", nil) }

func (v *jsonView) diagnostic(severity, summary, detail string, rng *jsonmsg.Range) {
	v.emit(jsonmsg.Diagnostic{Type: jsonmsg.TypeDiagnostic, Severity: severity, Summary: summary, Detail: detail, Range: rng})
}

// jsonRange is r as a diagnostic's range (nil: none).
func jsonRange(r *hcl.Range) *jsonmsg.Range {
	if r == nil {
		return nil
	}
	pos := func(p hcl.Pos) jsonmsg.Pos { return jsonmsg.Pos{Byte: p.Byte, Column: p.Column, Line: p.Line} }
	return &jsonmsg.Range{Filename: r.Filename, Start: pos(r.Start), End: pos(r.End)}
}

// Diagnostics emits one message each; the source position, which the text
// view shows as a snippet, is its range and starts the detail.
func (v *jsonView) Diagnostics(diags hcl.Diagnostics, _ *engine.Loaded) {
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		detail := d.Detail
		if d.Subject != nil {
			detail = d.Subject.String() + ": " + detail
		}
		v.diagnostic(sev, d.Summary, detail, jsonRange(d.Subject))
	}
}

// Plan emits the warnings, every step that does something, the changes to
// the state itself, then the counts.
func (v *jsonView) Plan(p *engine.Plan) {
	for _, w := range p.Warnings {
		v.emit(jsonmsg.Warning{Type: jsonmsg.TypeWarning, Message: w})
	}
	for _, s := range p.Steps {
		switch {
		case s.Action == resources.NoOp:
		case s.Hook != nil:
			v.emit(plannedHook(s))
		default:
			v.emit(jsonmsg.PlannedChange{Type: jsonmsg.TypePlannedChange, Address: s.Addr, Kind: s.Kind, Node: s.Node,
				Action: string(s.Action), Reasons: jsonReasons(s.Reasons), Changed: s.Changed,
				Before: redacted(s.Before, s.Sensitive), After: redacted(s.After, s.Sensitive)})
		}
	}
	v.stateChanges(p)
	c := p.Counts()
	v.emit(jsonmsg.ChangeSummary{Type: jsonmsg.TypeChangeSummary, Add: c.Add, Change: c.Change, Destroy: c.Destroy, Changes: p.HasChanges()})
}

func plannedHook(s *engine.Step) jsonmsg.PlannedHook {
	h := s.Hook
	return jsonmsg.PlannedHook{Type: jsonmsg.TypePlannedHook, Address: s.Addr, Hook: h.Name, Node: s.Node, Event: h.Event.String(),
		Operator: string(h.Event.Operation), Scope: string(h.Scope), HookType: string(h.Def.Type), Covers: h.Covers,
		OnFailure: string(h.Def.PolicyFor(h.Event.Operation)), WaitsFor: s.WaitsFor}
}

// jsonReasons are a change's reasons as PlannedChange's (nil stays nil:
// null, as it always was).
func jsonReasons(rs []resources.Reason) []jsonmsg.Reason {
	if rs == nil {
		return nil
	}
	out := make([]jsonmsg.Reason, len(rs))
	for i, r := range rs {
		out[i] = jsonmsg.Reason(r)
	}
	return out
}

// stateChanges emits what renderUnreadable and renderStateChanges show.
func (v *jsonView) stateChanges(p *engine.Plan) {
	if len(p.Unreadable) > 0 {
		v.emit(jsonmsg.UnreadableSecrets{Type: jsonmsg.TypeUnreadableSecrets, Values: p.Unreadable, NotCompared: p.Uncompared, Reasons: p.UnreadableReasons})
	}
	if s := p.Secrets; s != nil {
		v.emit(jsonmsg.SecretsChange{Type: jsonmsg.TypeSecretsChange, Recipients: s.Recipients, Added: s.Added, Removed: s.Removed, Encrypt: s.Encrypt})
	}
	for _, h := range p.HostKeys {
		v.emit(jsonmsg.HostKeyChange{Type: jsonmsg.TypeHostKeyChange, Node: h.Node, Action: h.Action, Fingerprint: h.Fingerprint})
	}
}

// PlanSaved says nothing: the saving is the -out the caller asked for.
func (v *jsonView) PlanSaved(*engine.Plan, string, bool) {}
