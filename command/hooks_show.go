package command

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/state"
)

// HooksShowCommand is `eggo hooks show ID`: one hook run in full.
type HooksShowCommand struct{ *meta }

func (c *HooksShowCommand) Synopsis() string { return "Show one recorded hook run in full" }

func (c *HooksShowCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] hooks show [-state=PATH] [-json] ID

  Shows one hook run (an ID from 'eggo hooks'): the hook, event, node and
  step, when it started and finished, every attempt (exit code, signal,
  whether it timed out, the script that failed, its error and times), a
  check's measurements (value, phase, message), the end of the output as
  the hook printed it, the error and the decision taken. Control characters
  in what the hook printed are shown escaped (ESC as \x1b), so they cannot
  act on the terminal; -json gives it unescaped, as a JSON string.

  It looks in the state first, then in the audit log beside it
  (PATH.hooks.log), which keeps runs the state no longer holds.

Options:
  -state=PATH   State file (default eggo.state).
  -json         The record as one JSON object.

` + stateFlagsHelp + `

Exit codes: 0 success, 1 error (no run with that ID).
`
}

func (c *HooksShowCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("hooks show", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if len(a.rest) != 1 {
		c.errorf("usage: eggo hooks show [-state=PATH] [-json] ID (IDs are listed by eggo hooks)")
		return 1
	}
	r, err := findHookRun(a.ws, a.rest[0])
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	c.view(a.js).HookRun(r)
	return 0
}

// findHookRun looks for id in the state, then in the audit log, where the
// newest run with that ID wins (a new lineage numbers its runs from 1 again).
func findHookRun(ws *engine.Workspace, id string) (state.HookRun, error) {
	path := ws.StatePath()
	runs, err := stateHookRuns(ws)
	if err != nil {
		return state.HookRun{}, err
	}
	for _, r := range runs {
		if r.ID == id {
			return r, nil
		}
	}
	logPath := ws.AuditLogPath()
	logged, _, err := readAuditLog(logPath)
	if err != nil {
		return state.HookRun{}, err
	}
	for i := len(logged) - 1; i >= 0; i-- {
		if logged[i].ID == id {
			return logged[i], nil
		}
	}
	return state.HookRun{}, fmt.Errorf("no hook run with ID %q: the state %s records %s%s and the audit log %s %s (see eggo hooks, or eggo hooks -log)",
		id, path, text.Plural(len(runs), "run"), idRange(runs), logPath, text.Plural(len(logged), "run"))
}

// idRange is " (IDs 3 to 9)" for a non-empty list.
func idRange(runs []state.HookRun) string {
	if len(runs) == 0 {
		return ""
	}
	return fmt.Sprintf(" (IDs %s to %s)", runs[0].ID, runs[len(runs)-1].ID)
}

// renderHookRun writes every field of one run. The output tail is written
// as the hook printed it, unindented, so it can be copied; only its control
// characters are escaped (safeHookRun).
func renderHookRun(b *strings.Builder, r state.HookRun, col colorizer) {
	r = safeHookRun(r)
	fmt.Fprintf(b, "%s %s\n", col.c(bold, "Hook run "+r.ID+":"), r.Address)
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(b, "  %-10s %s\n", name+":", value)
		}
	}
	field("hook", fmt.Sprintf("%s (%s)", r.Hook, dash(r.Type)))
	field("event", fmt.Sprintf("%s (operator %s)", r.Event, dash(r.Operator)))
	field("node", dash(r.Node))
	field("started", formatTime(r.Start))
	field("finished", fmt.Sprintf("%s (took %s)", formatTime(r.Finish), took(r.Start, r.Finish)))
	field("result", hookResult(r))
	if r.Phase != "" {
		field("phase", r.Phase)
	}
	field("decision", col.c(decisionColour(r.Decision), dash(r.Decision)))
	if r.Error != "" {
		fmt.Fprintf(b, "  %-10s %s\n", "error:", indentRest(r.Error, "             "))
	}
	if len(r.Attempts) > 0 {
		fmt.Fprintf(b, "\n%s\n", col.c(bold, "Attempts:"))
		for _, a := range r.Attempts {
			renderAttempt(b, a)
		}
	}
	if len(r.Measurements) > 0 {
		fmt.Fprintf(b, "\n%s\n", col.c(bold, "Measurements:"))
		for i, m := range r.Measurements {
			fmt.Fprintf(b, "  %d. %s  value %s  at %s (took %s)\n", i+1, dash(m.Phase), valueOrNone(m.Value), formatTime(m.Start), took(m.Start, m.Finish))
			if m.Message != "" {
				fmt.Fprintf(b, "     %s\n", indentRest(m.Message, "     "))
			}
		}
	}
	if r.Output != "" {
		fmt.Fprintf(b, "\n%s\n", col.c(bold, "Output (end of the last attempt, control characters escaped):"))
		b.WriteString(r.Output)
		if !strings.HasSuffix(r.Output, "\n") {
			b.WriteString("\n")
		}
	}
}

// safeHookRun is r as the text views show it: what a hook printed, its
// errors (which quote that output) and every name the state or the audit
// log holds were written by a node or by whoever wrote those files, so
// they are made safe (text.Safe for the multi-line output and errors,
// text.SafeLine for the rest, which stay in their lines and columns).
func safeHookRun(r state.HookRun) state.HookRun {
	line := text.SafeLine
	r.ID, r.Hook, r.Address, r.Node, r.Operator = line(r.ID), line(r.Hook), line(r.Address), line(r.Node), line(r.Operator)
	r.Event, r.Type, r.Phase, r.Decision = line(r.Event), line(r.Type), line(r.Phase), line(r.Decision)
	r.Output, r.Error = text.Safe(r.Output), text.Safe(r.Error)
	r.Attempts = slices.Clone(r.Attempts)
	for i := range r.Attempts {
		a := &r.Attempts[i]
		a.Signal, a.Script, a.Error = line(a.Signal), line(a.Script), text.Safe(a.Error)
	}
	r.Measurements = slices.Clone(r.Measurements)
	for i := range r.Measurements {
		m := &r.Measurements[i]
		m.Value, m.Phase, m.Message = line(m.Value), line(m.Phase), text.Safe(m.Message)
	}
	return r
}

func renderAttempt(b *strings.Builder, a state.HookAttempt) {
	fmt.Fprintf(b, "  #%d  %s", a.N, attemptResult(a))
	if a.ExitCode >= 0 && a.Signal != "" {
		fmt.Fprintf(b, " (exit %d)", a.ExitCode)
	}
	fmt.Fprintf(b, "  %s to %s (took %s)\n", formatTime(a.Start), formatTime(a.Finish), took(a.Start, a.Finish))
	var details []string
	if a.Script != "" {
		details = append(details, "script "+a.Script)
	}
	if a.Signal != "" {
		details = append(details, "signal "+a.Signal)
	}
	if a.TimedOut {
		details = append(details, "timed out")
	}
	if len(details) > 0 {
		fmt.Fprintf(b, "      %s\n", strings.Join(details, ", "))
	}
	if a.Error != "" {
		fmt.Fprintf(b, "      error: %s\n", indentRest(a.Error, "             "))
	}
}

func took(start, finish time.Time) string {
	if start.IsZero() || finish.IsZero() {
		return "-"
	}
	return finish.Sub(start).Round(time.Millisecond).String()
}

func valueOrNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// indentRest indents every line after the first of a multi-line message.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}
