package command

import (
	"context"
	"strings"

	"github.com/eggo-project/eggo/engine"
)

// PlanCommand is `eggo plan`.
type PlanCommand struct{ *meta }

func (c *PlanCommand) Synopsis() string { return "Show what apply would change, and why" }

func (c *PlanCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] plan [options]

  Reads every *.hcl file of the directory, reads the live hosts recorded in
  the state (refresh), and shows every change apply would make: + create,
  ~ update in place, -/+ replace, - destroy, each with its reason and the
  attributes that change. Nothing is changed anywhere.

Options:
  -out=FILE            Save the plan; 'eggo apply FILE' applies exactly it and
                       refuses if the state or the configuration moved since.
  -destroy             Plan the destruction of everything in the state.
  -detailed-exitcode   Exit 0 for no changes, 1 for an error, 2 for changes.
` + operationFlagsHelp + `
` + hookFlagsHelp + `

Exit codes: 0 success (any changes), 1 error; with -detailed-exitcode,
0 no changes, 1 error, 2 changes present.
`
}

func (c *PlanCommand) Run(args []string) int {
	op, err := parseOperation("plan", args)
	var jv *jsonView
	if op.JSON {
		jv = &jsonView{out: c.streams.Out}
	}
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	o := op.engineOptions(c.streams.Env)
	o.Log = c.logger()
	if jv != nil {
		o.Observer = jv
	}
	loaded, diags, ok := c.prepare(&o, jv)
	if !ok {
		return 1
	}
	defer closeBackend(&o)
	p, err := engine.MakePlan(context.Background(), o, loaded)
	c.diagnostics(diags, loaded, jv)
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	if jv != nil {
		jv.plan(p)
	} else {
		var b strings.Builder
		renderPlan(&b, p, c.col())
		c.streams.Out.Write([]byte(b.String()))
	}
	if op.Out != "" {
		if err := engine.SavePlan(op.Out, p); err != nil {
			c.fail(jv, err.Error())
			return 1
		}
		if jv == nil && p.HasChanges() {
			c.streams.Out.Write([]byte("\nSaved the plan to " + op.Out + ". To apply exactly it, run: eggo apply " + op.Out + "\n"))
		}
	}
	if op.DetailedExitcode && p.HasChanges() {
		return 2
	}
	return 0
}

// fail prints an error in the chosen view.
func (m *meta) fail(jv *jsonView, msg string) {
	if jv != nil {
		jv.diagnostic("error", msg, "")
		return
	}
	m.errorf("%s", msg)
}
