package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookcheck"
	"github.com/eggo-project/eggo/resources/hookrun"
	"github.com/eggo-project/eggo/state"
)

// hookRunner is the seam between a hook step and the world: the real one
// runs shell hooks over the run's connections and check hooks over HTTP;
// engine tests pass a fake.
type hookRunner interface {
	Shell(ctx context.Context, rc *resources.RunContext, n hook.Node, spec hookrun.Spec) hookrun.Outcome
	Check(ctx context.Context, spec hookcheck.Spec) hookcheck.Result
}

type realHookRunner struct{}

func (realHookRunner) Shell(ctx context.Context, rc *resources.RunContext, n hook.Node, spec hookrun.Spec) hookrun.Outcome {
	return hook.RunShell(ctx, rc, n, spec)
}

func (realHookRunner) Check(ctx context.Context, spec hookcheck.Spec) hookcheck.Result {
	return hookcheck.Run(ctx, spec, hookcheck.Options{})
}

// AuditLogPath is where every hook run is appended as a JSON line: beside
// the state, so the full history outlives the state's bounded list.
func AuditLogPath(statePath string) string { return statePath + ".hooks.log" }

// auditLog appends hook runs to the audit log, one JSON object a line.
type auditLog struct {
	path string
	mu   sync.Mutex
}

func (l *auditLog) append(r state.HookRun) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("hook audit log: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hook audit log %s: %w", l.path, err)
	}
	return nil
}

// hookApplier runs the hook steps of one apply.
type hookApplier struct {
	rc       *resources.RunContext
	runner   hookRunner
	rec      *recorder
	log      *auditLog
	observer Observer

	mu       sync.Mutex
	warnings []string
}

// run runs one hook step. An abort decision is the step's error, so the
// walk skips exactly what waits on it (the operation of a pre hook) and
// names the hook as the cause; continue succeeds with a warning. Either
// way the run is recorded in state and in the audit log.
func (a *hookApplier) run(ctx context.Context, s *Step) (err error) {
	start := time.Now()
	a.observer.PreApply(&s.Change)
	defer func() { a.observer.PostApply(&s.Change, err, time.Since(start)) }()
	h := s.Hook
	rec := state.HookRun{Hook: h.Name, Address: s.Addr, Node: h.Node.Name, Operator: string(h.Event.Operation),
		Event: h.Event.String(), Type: string(h.Def.Type), Start: start}
	var decision hookrun.Decision
	var failure error
	switch h.Def.Type {
	case hook.TypeShell:
		decision, failure = a.shell(ctx, h, &rec)
	case hook.TypeWeb, hook.TypePrometheus:
		decision, failure = a.check(ctx, h, &rec)
	default:
		decision, failure = hookrun.DecisionAbort, fmt.Errorf("hook %q (%s): unknown type %q", h.Name, h.Def.Source, h.Def.Type)
	}
	rec.Finish, rec.Decision = time.Now(), string(decision)
	if failure != nil {
		rec.Error = failure.Error()
	}
	var stored state.HookRun
	recErr := a.rec.update(func(st *state.State) { stored = st.AddHookRun(rec) })
	if recErr == nil {
		rec.ID = stored.ID
		recErr = a.log.append(rec)
	}
	switch decision {
	case hookrun.DecisionOK:
		return recErr
	case hookrun.DecisionContinue:
		// rec.Node is where it ran: the node, or "operator" for run_on = "operator".
		w := fmt.Sprintf("%s failed on %s; the %s goes on (its policy is to continue): %v", s.Addr, rec.Node, h.Event.Operation, failure)
		a.mu.Lock()
		a.warnings = append(a.warnings, w)
		a.mu.Unlock()
		a.observer.Progress(s.Addr, "warning: "+w)
		return recErr
	}
	return errors.Join(fmt.Errorf("hook %q (%s) stopped the %s of %s: %w", h.Name, h.Event, h.Event.Operation, joinNames(h.Covers), failure), recErr)
}

func (a *hookApplier) shell(ctx context.Context, h *HookStep, rec *state.HookRun) (hookrun.Decision, error) {
	spec := h.Def.ShellSpec(h.Event.Operation)
	spec.Env = hook.Env(h.Cluster, h.Node, h.Event)
	if h.Scope == hook.ClusterScope {
		spec.Args = hook.ClusterArgs(h.Cluster)
	}
	where := h.Node
	if h.Local {
		where = hook.OperatorNode
		rec.Node = where.Name
	}
	out := a.runner.Shell(ctx, a.rc, where, spec)
	for _, at := range out.Attempts {
		ha := state.HookAttempt{N: at.N, Start: at.Start, Finish: at.Finish, ExitCode: at.ExitCode, Signal: at.Signal,
			TimedOut: at.TimedOut, Script: at.Script}
		if at.Err != nil {
			ha.Error = at.Err.Error()
		}
		rec.Attempts = append(rec.Attempts, ha)
		rec.Output = at.Output
	}
	if out.Decision == "" {
		out.Decision = hookrun.DecisionAbort
	}
	return out.Decision, out.Err
}

// check measures a check hook. Its phase feeds the policy: Successful is
// ok; any other phase is a failure the policy decides on, retry re-running
// the whole measurement run (bounded, with backoff) before its fallback.
func (a *hookApplier) check(ctx context.Context, h *HookStep, rec *state.HookRun) (hookrun.Decision, error) {
	if h.Def.Check == nil {
		return hookrun.DecisionAbort, fmt.Errorf("hook %q (%s): no check to run", h.Name, h.Def.Source)
	}
	args := hook.ExpandArgs(h.Def.Check.Args, hook.ArgValues(h.Cluster, h.Node))
	spec, err := hookcheck.Render(*h.Def.Check, args)
	if err != nil {
		return hookrun.DecisionAbort, fmt.Errorf("hook %q (%s): %w", h.Name, h.Def.Source, err)
	}
	policy := h.Def.PolicyFor(h.Event.Operation)
	attempts, backoff := 1, h.Def.Backoff
	if policy == hookrun.Retry {
		attempts = max(h.Def.Attempts, 1)
		if h.Def.Attempts == 0 {
			attempts = hookrun.DefaultRetryAttempts
		}
		if backoff <= 0 {
			backoff = hookrun.DefaultBackoff
		}
	}
	var res hookcheck.Result
	for n := 1; ; n++ {
		res = a.runner.Check(ctx, spec)
		rec.Phase = string(res.Phase)
		rec.Measurements = rec.Measurements[:0]
		for _, m := range res.Measurements {
			rec.Measurements = append(rec.Measurements, state.HookMeasurement{Start: m.Start, Finish: m.Finish, Value: m.Value, Phase: string(m.Phase), Message: m.Message})
		}
		rec.Attempts = append(rec.Attempts, state.HookAttempt{N: n, Start: res.Started, Finish: res.Finished, ExitCode: -1, Error: res.Message})
		if res.Phase == hookcheck.PhaseSuccessful {
			rec.Attempts[len(rec.Attempts)-1].Error = ""
			return hookrun.DecisionOK, nil
		}
		if n >= attempts || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(backoff):
			backoff = min(backoff*2, hookrun.MaxBackoff)
		case <-ctx.Done():
		}
	}
	failure := fmt.Errorf("hook %q on %s: check %s: %s", h.Name, h.Node.Name, res.Phase, res.Message)
	final := policy
	if final == hookrun.Retry {
		final = h.Def.Fallback
	}
	if final == hookrun.Continue && ctx.Err() == nil {
		return hookrun.DecisionContinue, failure
	}
	return hookrun.DecisionAbort, failure
}
