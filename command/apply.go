package command

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/eggo-project/eggo/engine"
)

// ApplyCommand is `eggo apply` and, with destroy set, `eggo destroy`.
type ApplyCommand struct {
	*meta
	destroy bool
}

func (c *ApplyCommand) name() string {
	if c.destroy {
		return "destroy"
	}
	return "apply"
}

func (c *ApplyCommand) Synopsis() string {
	if c.destroy {
		return "Remove everything eggo created, in reverse order"
	}
	return "Make the hosts match the configuration"
}

func (c *ApplyCommand) Help() string {
	if c.destroy {
		return `Usage: eggo [-chdir=DIR] destroy [options]

  Plans the deletion of everything recorded in the state, shows it, asks for
  "yes", then deletes in reverse dependency order, in parallel where the
  graph allows. Each resource removes exactly what it recorded creating.
  State is written after every resource, so an interrupted destroy resumes.

Options:
  -auto-approve        Do not ask for "yes".
` + operationFlagsHelp + `
` + hookFlagsHelp + `

Exit codes: 0 success, 1 error (every failure is listed by address and host).
`
	}
	return `Usage: eggo [-chdir=DIR] apply [options] [PLANFILE]

  Plans (as 'eggo plan' does), shows the plan, asks for "yes", then changes
  the hosts in parallel along the dependency graph. State is written
  atomically after every resource: a crash, kill -9 or Ctrl-C loses nothing
  done, and running apply again resumes. A failed resource skips only what
  depends on it. The first Ctrl-C starts nothing new and waits for running
  operations; a second abandons them.

  With PLANFILE (from 'eggo plan -out'), applies exactly that plan without
  asking, and refuses if the state or the configuration changed since. It
  runs exactly the hooks the plan shows: give hook flags to 'eggo plan'. A
  plan of a sealed state is sealed: give -identity to open it.

Options:
  -auto-approve        Do not ask for "yes" (needed when stdin is no terminal).
` + operationFlagsHelp + `
` + hookFlagsHelp + `

Exit codes: 0 success, 1 error (every failure is listed by address and host).
`
}

func (c *ApplyCommand) Run(args []string) int {
	op, err := parseOperation(c.name(), args)
	v := c.view(op != nil && op.JSON)
	if err != nil {
		v.Error(err.Error())
		return 1
	}
	req := op.request(c.streams.Env)
	req.Log = c.logger()
	req.Vars.CheckKeyFiles = true // a missing key is an error at its line, not in the middle of an apply
	var saved *engine.Plan
	if op.PlanFile != "" {
		if saved, err = engine.LoadPlan(op.PlanFile, req.Identities); err != nil {
			v.Error(err.Error())
			return 1
		}
		req.Vars.Vars, req.Vars.VarFiles = saved.VarArgs, saved.VarFiles
	}
	req.Lock = c.name()
	ws, ok := c.open(req, v)
	if !ok {
		return 1
	}
	defer ws.Close()
	return c.run(v, op, ws, saved)
}

// run plans (or takes the saved plan), asks, and applies, holding the
// state's lock. The plan and the apply share the workspace's connections:
// one per host per run.
func (c *ApplyCommand) run(v View, op *Operation, ws *engine.Workspace, saved *engine.Plan) int {
	ctx, stop, release := c.interrupts()
	defer release()

	p := saved
	if saved != nil {
		// A saved plan's warnings are shown before it is applied (Apply
		// refuses it if the configuration changed since).
		loaded := ws.Loaded()
		v.Diagnostics(loaded.Diags, loaded)
	} else {
		var done bool
		var code int
		if p, done, code = c.planAndApprove(v, op, ws); done {
			return code
		}
	}
	res, err := ws.Apply(ctx, p, op.applyOptions(), v, stop)
	if res != nil {
		v.Summary(c.name(), p, res)
	}
	if err != nil {
		v.Error(err.Error())
		return 1
	}
	if !res.OK() {
		return 1
	}
	return 0
}

// planAndApprove makes and shows the plan, then asks for approval unless
// -auto-approve. done means the command ends here, with code: an error,
// no changes, or no approval.
func (c *ApplyCommand) planAndApprove(v View, op *Operation, ws *engine.Workspace) (p *engine.Plan, done bool, code int) {
	p, err := ws.Plan(context.Background(), op.planOptions(), v.PlanObserver())
	loaded := ws.Loaded()
	if err != nil {
		v.Diagnostics(loaded.Diags, loaded)
		showError(v, err, loaded)
		return nil, true, 1
	}
	// The plan's warnings are printed as text on stderr even under -json,
	// as they always were (stdout keeps only the plan's lines).
	if len(loaded.Diags) > 0 {
		c.text().Diagnostics(loaded.Diags, loaded)
	}
	v.Plan(p)
	if !p.HasChanges() {
		return nil, true, 0
	}
	if !op.AutoApprove {
		if ok, code := c.approve(v); !ok {
			return nil, true, code
		}
	}
	return p, false, 0
}

// approve asks for "yes". An answer that is not "yes" is reported as text
// on stderr in either format, as it always was.
func (c *ApplyCommand) approve(v View) (bool, int) {
	if !c.streams.InTTY {
		v.Error(fmt.Sprintf("%s needs approval, and stdin is not a terminal: run it with -auto-approve, or apply a saved plan (eggo plan -out=FILE; eggo apply FILE)", c.name()))
		return false, 1
	}
	q := "\nDo you want to perform these actions?\n  eggo will perform the actions described above.\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: "
	if c.destroy {
		q = "\nDo you really want to destroy all resources?\n  eggo will destroy everything in the state. There is no undo.\n  Only 'yes' will be accepted to confirm.\n\n  Enter a value: "
	}
	answer, err := c.ask(q)
	if err != nil && !errors.Is(err, io.EOF) {
		v.Error(err.Error())
		return false, 1
	}
	if answer != "yes" {
		c.errorf("%s cancelled: the answer was not \"yes\". Nothing was changed.", c.name())
		return false, 1
	}
	return true, 0
}
