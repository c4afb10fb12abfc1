package command

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/internal/text"
)

// humanView writes for people: the plan as Terraform users read it,
// diagnostics and errors on stderr, and apply progress line by line (the
// embedded progressView is its run observer).
//
// Text that eggo did not write itself — from a state, a lock, a plan file,
// a node's output, and so every error and diagnostic, which may quote any
// of them — goes through text.Safe (text.SafeLine for a value that must
// stay on its line) before it is coloured: a hostile state or node cannot
// send the operator's terminal an escape sequence. The choke points are
// Error, Diagnostics, warning, the progress observer, safeHookRun, and the
// renderers' primitives for addresses, keys and values.
type humanView struct {
	*progressView
	errw io.Writer
}

func (v *humanView) Error(msg string) {
	fmt.Fprintf(v.errw, "%s %s\n", v.col.c(red, "Error:"), text.Safe(msg))
}

// warning is a "Warning: msg" line, msg made safe.
func warning(col colorizer, msg string) string {
	return col.c(yellow, "Warning:") + " " + text.Safe(msg)
}

// Diagnostics prints HCL diagnostics with their source snippets.
func (v *humanView) Diagnostics(diags hcl.Diagnostics, l *engine.Loaded) {
	if len(diags) == 0 {
		return
	}
	var files map[string][]byte
	if l != nil {
		files = l.Files
	}
	if err := config.WriteDiagnostics(v.errw, files, safeDiagnostics(diags), bool(v.col), 100); err != nil {
		v.Error(err.Error())
	}
}

// safeDiagnostics are diags with their summaries and details made safe:
// an error turned into a diagnostic may quote a node's output. The
// snippets quoted from the configuration's own files are left as written.
func safeDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Summary, c.Detail = text.Safe(d.Summary), text.Safe(d.Detail)
		out[i] = &c
	}
	return out
}

func (v *humanView) Plan(p *engine.Plan) {
	b := bufio.NewWriterSize(v.out, 64<<10)
	renderPlan(b, p, v.col)
	b.Flush()
}

// PlanSaved tells how to apply a saved plan; one without changes has
// nothing to apply, so nothing is said.
func (v *humanView) PlanSaved(p *engine.Plan, path string, sealed bool) {
	switch {
	case !p.HasChanges():
	case sealed:
		io.WriteString(v.out, "\nSaved the plan to "+path+", sealed to the state's recipients. To apply exactly it, run: eggo apply -identity=FILE "+path+"\n")
	default:
		io.WriteString(v.out, "\nSaved the plan to "+path+". To apply exactly it, run: eggo apply "+path+"\n")
	}
}

// PlanObserver is silent: people see the plan, not each refresh.
func (v *humanView) PlanObserver() runObserver { return quietObserver{} }

// Applying separates the progress from the plan, and starts the heartbeat
// that shows a long change is alive.
func (v *humanView) Applying() func() {
	io.WriteString(v.out, "\n")
	stop := make(chan struct{})
	go v.heartbeat(10*time.Second, stop)
	return func() { close(stop) }
}

func (v *humanView) Valid(nodes int, unset []string) {
	if len(unset) == 0 {
		io.WriteString(v.out, v.col.c(green, "Success!")+fmt.Sprintf(" The configuration is valid (%s).\n", text.Plural(nodes, "node")))
		return
	}
	io.WriteString(v.out, v.col.c(green, "Success!")+" The configuration is valid, as far as it does not depend on variables without a value.\n\n")
	names := make([]string, len(unset))
	for i, n := range unset {
		names[i] = "var." + n
	}
	fmt.Fprintf(v.out, "%s had no value and %s taken as unknown: what depends on %s was not checked, nor what the "+
		"resource kinds need (such as the package bundle). Give values with -var or -var-file to check everything.\n",
		strings.Join(names, ", "), oneOrMany(len(names), "was", "were"), oneOrMany(len(names), "it", "them"))
}

func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
