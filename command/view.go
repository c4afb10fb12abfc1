package command

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/state"
)

// View is everything a command prints, in one output format. A command
// picks its view once, from its -json flag (meta.view), and then never
// asks which format it is writing: the human view (humanView) writes text
// for people, the JSON view (jsonView) writes the machine contract
// declared in package jsonmsg.
type View interface {
	// Diagnostics reports configuration problems; l supplies the source
	// snippets the text view quotes (nil: none).
	Diagnostics(diags hcl.Diagnostics, l *engine.Loaded)
	// Error reports an error that ends the command.
	Error(msg string)

	// Plan shows a plan; PlanSaved says where it was saved (-out).
	Plan(p *engine.Plan)
	PlanSaved(p *engine.Plan, path string, sealed bool)

	// The view observes the apply itself; PlanObserver is what observes
	// planning, whose refreshes only the machine format reports.
	runObserver
	PlanObserver() runObserver
	// Applying is called once the apply starts; the returned func is
	// called when it ends (the text view's heartbeat runs in between).
	Applying() (done func())
	// Summary reports how the apply or destroy (op) ended.
	Summary(op string, p *engine.Plan, r *engine.Result)

	// Valid reports a valid configuration of nodes nodes (validate);
	// unset names the variables without a value, which were taken as
	// unknown: then what depends on them was not checked, and nodes
	// counts only the nodes that were known.
	Valid(nodes int, unset []string)
	// State shows a non-empty state, Resource one of its resources (show,
	// state show).
	State(st *state.State)
	Resource(r *state.Resource)
	// HookRuns lists recorded hook runs, HookRun shows one in full.
	HookRuns(runs []state.HookRun)
	HookRun(r state.HookRun)
	// Graph shows the plan's resource graph.
	Graph(p *engine.Plan) error
}

// runObserver is the engine's progress callback interface. It is named
// only here, so that renaming it in the engine is a one-line change.
type runObserver = engine.Observer

// view is the command's view for its -json flag.
func (m *meta) view(json bool) View {
	if json {
		return &jsonView{out: m.streams.Out}
	}
	return m.text()
}

// text is the human view. Some commands report their errors and
// diagnostics as text on stderr even under -json (only their result is
// JSON); they use it directly.
func (m *meta) text() *humanView {
	return &humanView{progressView: newProgressView(m.streams.Out, m.col()), errw: m.streams.Err}
}
