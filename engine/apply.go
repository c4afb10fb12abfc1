package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// Result is what an apply did.
type Result struct {
	Applied    []string          // addresses changed successfully, in completion order
	Failed     map[string]error  // address → error
	Skipped    map[string]string // address → the failed address it depended on
	NotStarted []string          // interrupted before they started
	Counts     Counts            // of what was done
	Took       time.Duration
	// Connections, Writes and Bytes count the workspace's session so far:
	// its plan's reads and the apply's changes (Workspace.Apply).
	Connections int64 // SSH/local connections opened
	Writes      int64 // remote writes (uploads and mutating commands)
	Bytes       int64 // bytes uploaded
	// HookWarnings are the hooks that failed and whose policy continued
	// (continue, or retry falling back to continue).
	HookWarnings []string
}

// Failure is one failed resource, for the error summary.
type Failure struct {
	Addr, Node string
	Err        error
}

// Failures lists failures sorted by address.
func (r *Result) Failures(p *Plan) []Failure {
	var out []Failure
	for _, a := range slices.Sorted(maps.Keys(r.Failed)) {
		f := Failure{Addr: a, Err: r.Failed[a]}
		if s := p.Step(a); s != nil {
			f.Node = s.Node
		}
		out = append(out, f)
	}
	return out
}

// OK reports whether everything planned was done.
func (r *Result) OK() bool {
	return len(r.Failed) == 0 && len(r.NotStarted) == 0 && len(r.Skipped) == 0
}

// apply walks the plan's graph, changing resources in parallel along its
// edges and recording each in state as it finishes. The caller holds the
// state lock. prior is the state the plan was made from (nil for none).
func apply(ctx context.Context, o options, p *Plan, prior *state.State, stop <-chan struct{}) (*Result, error) {
	start := time.Now()
	if prior == nil {
		prior = state.New()
	}
	if prior.Lineage != p.Lineage && p.Lineage != "" || prior.Serial != p.Serial {
		return nil, errorf("the state changed since this plan was made (plan: lineage %s serial %d; state: lineage %s serial %d): make a new plan",
			short(p.Lineage), p.Serial, short(prior.Lineage), prior.Serial)
	}
	if err := refuseUnreadable(prior, o.backend().Describe()); err != nil {
		return nil, err
	}
	st := prior.Copy()
	st.EggoVersion = Version
	st.FormatVersion = state.FormatVersion
	rec := newRecorder(o.backend(), st)
	pins := newHostPins(prior, p.HostKeys)
	pins.onSeen = func(node, key string) {
		_ = rec.update(func(st *state.State) { setHostKey(st, node, key) })
	}
	rc, done := o.runContext(runSpec{pins: pins, recorded: rec.recorded, recordedAt: rec.recordedAt, checkpoint: checkpointer(p, rec),
		destroy: p.Destroy, force: o.Force || p.Force})
	defer done()
	if hasPins(p.HostKeys) {
		if err := rec.update(func(st *state.State) { pinPlanned(st, p.HostKeys) }); err != nil {
			return nil, err
		}
	}
	g, err := applyGraph(p)
	if err != nil {
		return nil, err
	}
	if p.Deploying && !rec.snapshot().DeployPending {
		if err := rec.update(func(st *state.State) { st.DeployPending = true }); err != nil {
			return nil, err
		}
	}
	res := walkPlan(ctx, o, p, g, rc, rec, stop)
	if err := finishApply(p, rec, res); err != nil {
		return res, err
	}
	stats := rc.Pool.Stats()
	res.Connections, res.Writes, res.Bytes = stats.Connections, stats.Writes, stats.BytesUploaded
	res.Took = time.Since(start)
	return res, rec.writeErr
}

// checkpointer records a running step's attributes as pending: what a
// kind checkpoints survives a crash before the step finishes.
func checkpointer(p *Plan, rec *recorder) func(addr string, attrs resources.Attrs) error {
	return func(addr string, attrs resources.Attrs) error {
		s := p.Step(addr)
		if s == nil {
			return errorf("checkpoint for %s, which is not in the plan", addr)
		}
		return rec.update(func(st *state.State) {
			st.Set(toResource(addr, s.Kind, s.Node, attrs, depsOf(s), s.Sensitive, true))
		})
	}
}

// applyGraph is the plan's graph as saved in its steps' edges.
func applyGraph(p *Plan) (*graph.Graph, error) {
	g := graph.New()
	for _, s := range p.Steps {
		g.Add(s.Addr)
	}
	for _, s := range p.Steps {
		for _, dep := range s.WaitsFor {
			if !g.Has(dep) {
				return nil, errorf("plan: %s waits for %s, which is not in the plan", s.Addr, dep)
			}
			if err := g.Connect(s.Addr, dep); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// walkPlan runs every step along g, at most o.Parallelism at once, and
// says what happened to each.
func walkPlan(ctx context.Context, o options, p *Plan, g *graph.Graph, rc *resources.RunContext, rec *recorder, stop <-chan struct{}) *Result {
	kinds := kindIndex(o.Kinds)
	ha := &hookApplier{rc: rc, runner: o.hookRunner, rec: rec, log: &auditLog{path: AuditLogPath(o.StatePath)}, observer: o.Observer}
	wr := g.Walk(ctx, graph.WalkOptions{Parallelism: o.Parallelism, Stop: stop}, func(ctx context.Context, addr string) error {
		s := p.Step(addr)
		if s.Action == resources.NoOp {
			return nil
		}
		if s.Kind == hookKind {
			return ha.run(ctx, s)
		}
		return applyStep(ctx, rc, kinds[s.Kind], s, rec, o.Observer)
	})
	res := &Result{Failed: map[string]error{}, Skipped: map[string]string{}}
	for _, a := range wr.Done {
		if s := p.Step(a); s != nil && s.Action != resources.NoOp {
			res.Applied = append(res.Applied, a)
			res.Counts.tally(s.Action)
		}
	}
	for a, err := range wr.Errors {
		res.Failed[a] = err
	}
	for a, cause := range wr.Skipped {
		res.Skipped[a] = cause
	}
	res.NotStarted = wr.NotStarted
	res.HookWarnings = ha.warnings
	return res
}

// finishApply records what a run changes beyond its resources: the end
// of a pending deploy, the outputs, and the host keys it forgets.
func finishApply(p *Plan, rec *recorder, res *Result) error {
	// A deploy that finished, or a destroy of a cluster whose deploy never
	// did, ends the pending deploy.
	if res.OK() && (p.Deploying || p.Destroy) && rec.snapshot().DeployPending {
		if err := rec.update(func(st *state.State) { st.DeployPending = false }); err != nil {
			return err
		}
	}
	if res.OK() {
		outs := outputMap(p.Outputs)
		if p.Destroy {
			outs = nil
		}
		// Only a real change is written: a no-op apply leaves the file alone.
		if !resources.Equal(map[string]any(rec.snapshot().Outputs), map[string]any(outs)) || p.Secrets != nil {
			sensitive := sensitiveOutputs(p.Outputs)
			if p.Destroy {
				sensitive = nil
			}
			// A write seals to the current recipients: a recipients
			// change alone is applied by this write.
			if err := rec.update(func(st *state.State) { st.Outputs, st.SensitiveOutputs = outs, sensitive }); err != nil {
				return err
			}
		}
	}
	return forgetHostKeys(rec, p.HostKeys)
}

func sensitiveOutputs(outs []Output) []string {
	var names []string
	for _, o := range outs {
		if o.Sensitive {
			names = append(names, o.Name)
		}
	}
	return names
}

func outputMap(outs []Output) map[string]any {
	if len(outs) == 0 {
		return nil
	}
	m := make(map[string]any, len(outs))
	for _, o := range outs {
		m[o.Name] = o.Value
	}
	return m
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	if s == "" {
		return "(none)"
	}
	return s
}

func depsOf(s *Step) []string {
	if s.Desired != nil {
		return s.Desired.DependsOn
	}
	if s.Prior != nil {
		return s.Prior.DependsOn
	}
	return nil
}

// applyStep runs one change: pending record first, then the kind, then the
// result recorded — whatever the kind reports as done is kept even on error.
func applyStep(ctx context.Context, rc *resources.RunContext, k resources.Kind, s *Step, rec *recorder, obs Observer) (err error) {
	start := time.Now()
	obs.PreApply(&s.Change)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in %s: %v", s.Kind, r)
		}
		obs.PostApply(&s.Change, err, time.Since(start))
	}()
	pendingAttrs := resources.Attrs{}
	if s.Prior != nil && s.Prior.Attrs != nil {
		pendingAttrs = s.Prior.Attrs
	}
	if err := rec.update(func(st *state.State) {
		st.Set(toResource(s.Addr, s.Kind, s.Node, pendingAttrs, depsOf(s), s.Sensitive, true))
	}); err != nil {
		return fmt.Errorf("recording %s as pending: %w", s.Addr, err)
	}
	desired := s.Desired
	if desired != nil {
		resolved, err := resolveForApply(*desired, rec.lookup)
		if err != nil {
			return err
		}
		desired = &resolved
	}
	var attrs resources.Attrs
	switch s.Action {
	case resources.Create:
		attrs, err = k.Create(ctx, rc, *desired, s.Change)
	case resources.Update:
		attrs, err = k.Update(ctx, rc, *s.Prior, *desired, s.Change)
	case resources.Delete:
		attrs, err = k.Delete(ctx, rc, *s.Prior)
		if err != nil && rc.Force && resources.IsUnreachable(err) {
			obs.Progress(s.Addr, fmt.Sprintf("host %s unreachable: removed from the state without touching it (-force)", resources.UnreachableHost(err)))
			attrs, err = nil, nil
		}
	case resources.Replace:
		attrs, err = k.Delete(ctx, rc, *s.Prior)
		if err == nil {
			pendingAttrs = resources.Attrs{}
			attrs, err = k.Create(ctx, rc, *desired, s.Change)
		}
	default:
		return errorf("%s: unknown action %q", s.Addr, s.Action)
	}
	// Nothing left to record: a finished delete, or a create that failed
	// before it made anything.
	gone := err == nil && s.Action == resources.Delete ||
		err != nil && attrs == nil && len(pendingAttrs) == 0 && s.Action != resources.Delete
	recErr := rec.update(func(st *state.State) {
		switch {
		case gone:
			st.Remove(s.Addr)
		case err != nil:
			// Keep what was done, marked pending so the next plan re-reads it.
			keep := attrs
			if keep == nil {
				keep = pendingAttrs
			}
			st.Set(toResource(s.Addr, s.Kind, s.Node, keep, depsOf(s), s.Sensitive, true))
		default:
			st.Set(toResource(s.Addr, s.Kind, s.Node, attrs, depsOf(s), s.Sensitive, false))
		}
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted: %w", err)
		}
		return err
	}
	return recErr
}

// FailureSummary formats failures for an error message: one per line,
// address and host.
func FailureSummary(p *Plan, r *Result) string {
	var b strings.Builder
	for _, f := range r.Failures(p) {
		host := ""
		if f.Node != "" {
			host = " (host " + f.Node + ")"
		}
		fmt.Fprintf(&b, "  %s%s: %v\n", f.Addr, host, f.Err)
	}
	for _, a := range slices.Sorted(maps.Keys(r.Skipped)) {
		fmt.Fprintf(&b, "  %s: skipped, depends on failed %s\n", a, r.Skipped[a])
	}
	for _, a := range r.NotStarted {
		fmt.Fprintf(&b, "  %s: not started (interrupted)\n", a)
	}
	return b.String()
}
