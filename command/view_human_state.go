package command

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/state"
)

// State lists every resource with its attributes, then the outputs. A
// state file is anyone's text: what it names is made safe (safeAddr,
// text.SafeLine; values are quoted, which escapes them).
func (v *humanView) State(st *state.State) {
	fmt.Fprintf(v.out, "# state serial %d, lineage %s, written by eggo %s\n\n", st.Serial, text.SafeLine(st.Lineage), text.SafeLine(st.EggoVersion))
	for i := range st.Resources {
		v.Resource(&st.Resources[i])
		fmt.Fprintln(v.out)
	}
	if outputs := shownOutputs(st); len(outputs) > 0 {
		fmt.Fprintln(v.out, "Outputs:")
		for _, k := range slices.Sorted(maps.Keys(outputs)) {
			fmt.Fprintf(v.out, "  %s = %s\n", text.SafeLine(k), renderValue(outputs[k], "  "))
		}
	}
}

// Resource shows one resource as an HCL-like block, sensitive values
// hidden.
func (v *humanView) Resource(r *state.Resource) {
	attrs := redacted(r.Attributes, r.Sensitive)
	addr := safeAddr(r.Address)
	fmt.Fprintf(v.out, "# %s", addr)
	if r.Status != "" {
		fmt.Fprintf(v.out, " (%s)", text.SafeLine(r.Status))
	}
	fmt.Fprintf(v.out, "\n%s {\n", addr)
	keys := slices.Sorted(maps.Keys(attrs))
	w := maxLen(keys)
	for _, k := range keys {
		fmt.Fprintf(v.out, "    %-*s = %s\n", w, text.SafeLine(k), renderValue(attrs[k], "    "))
	}
	if len(r.Dependencies) > 0 {
		fmt.Fprintf(v.out, "    # depends on: %s\n", text.SafeLine(strings.Join(r.Dependencies, ", ")))
	}
	fmt.Fprintln(v.out, "}")
}

// Graph prints the plan's graph in Graphviz DOT. A destroy plan's
// addresses are the state's: made safe, they stay inside DOT's quoted
// strings, where a backslash escape is valid.
func (v *humanView) Graph(p *engine.Plan) error {
	dot, err := engine.DOT(p)
	if err != nil {
		return err
	}
	io.WriteString(v.out, text.Safe(dot))
	return nil
}

func (v *humanView) HookRun(r state.HookRun) {
	var b strings.Builder
	renderHookRun(&b, r, v.col)
	io.WriteString(v.out, b.String())
}

// HookRuns prints one line a run. Colour goes on the decision only after
// tabwriter has aligned the plain text: escape codes would skew columns.
func (v *humanView) HookRuns(runs []state.HookRun) {
	if len(runs) == 0 {
		fmt.Fprintln(v.out, "No hook runs recorded.")
		return
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFINISHED\tHOOK\tEVENT\tNODE\tTYPE\tRESULT\tATTEMPTS\tDECISION")
	for _, r := range runs {
		r := safeHookRun(r)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, formatTime(r.Finish), r.Hook, r.Event, dash(r.Node),
			r.Type, hookResult(r), len(r.Attempts), dash(r.Decision))
	}
	tw.Flush()
	col := v.col
	lines := strings.SplitAfter(buf.String(), "\n")
	io.WriteString(v.out, col.c(bold, strings.TrimRight(lines[0], "\n"))+"\n")
	for i, line := range lines[1:] {
		if line == "" {
			continue
		}
		d := text.SafeLine(runs[i].Decision)
		if d != "" && strings.HasSuffix(line, d+"\n") {
			line = strings.TrimSuffix(line, d+"\n") + col.c(decisionColour(d), d) + "\n"
		}
		io.WriteString(v.out, line)
	}
}
