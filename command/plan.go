package command

import (
	"context"
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
                       A plan of a sealed state is sealed to its recipients:
                       apply and show it with -identity.
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
	v := c.view(op.JSON)
	if err != nil {
		v.Error(err.Error())
		return 1
	}
	req := op.request(c.streams.Env)
	req.Log, req.PrefetchState = c.logger(), true
	req.Vars.CheckKeyFiles = true // a missing key is an error at its line, not in the middle of an apply
	if op.Out != "" {
		if err := req.CheckPlanOut(op.Out); err != nil {
			v.Error(err.Error())
			return 1
		}
	}
	ws, ok := c.open(req, v)
	if !ok {
		return 1
	}
	defer ws.Close()
	p, err := ws.Plan(context.Background(), op.planOptions(), v.PlanObserver())
	loaded := ws.Loaded()
	v.Diagnostics(loaded.Diags, loaded)
	if err != nil {
		showError(v, err, loaded)
		return 1
	}
	v.Plan(p)
	if op.Out != "" {
		sealedTo, err := ws.SavePlan(op.Out, p)
		if err != nil {
			v.Error(err.Error())
			return 1
		}
		v.PlanSaved(p, op.Out, len(sealedTo) > 0)
	}
	if op.DetailedExitcode && p.HasChanges() {
		return 2
	}
	return 0
}
