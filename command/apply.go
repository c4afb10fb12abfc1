package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
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
  runs exactly the hooks the plan shows: give hook flags to 'eggo plan'.

Options:
  -auto-approve        Do not ask for "yes" (needed when stdin is no terminal).
` + operationFlagsHelp + `
` + hookFlagsHelp + `

Exit codes: 0 success, 1 error (every failure is listed by address and host).
`
}

func (c *ApplyCommand) Run(args []string) int {
	op, err := parseOperation(c.name(), args)
	var jv *jsonView
	if op != nil && op.JSON {
		jv = &jsonView{out: c.streams.Out}
	}
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	o := op.engineOptions(c.streams.Env)
	o.Log = c.logger()
	var saved *engine.Plan
	if op.PlanFile != "" {
		if saved, err = engine.LoadPlan(op.PlanFile); err != nil {
			c.fail(jv, err.Error())
			return 1
		}
		o.Vars.Vars, o.Vars.VarFiles = saved.VarArgs, saved.VarFiles
	}
	loaded, diags, ok := c.prepare(&o, jv)
	if !ok {
		return 1
	}
	defer closeBackend(&o)
	lock, err := o.Backend.Lock(c.name())
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	defer lock.Unlock()

	var observer engine.Observer
	if jv != nil {
		observer = jv
	} else {
		observer = newProgressView(c.streams.Out, c.col())
	}
	o.Observer = observer
	// One session for the plan and the apply: one connection per host per run.
	sess := engine.NewSession(o)
	defer sess.Close()
	o.Session = sess

	ctx, stop, release := c.interrupts()
	defer release()

	var p *engine.Plan
	if op.PlanFile != "" {
		p = saved
		c.diagnostics(diags, loaded, jv)
		if err := engine.CheckSavedPlan(o, p, loaded); err != nil {
			c.fail(jv, err.Error())
			return 1
		}
	} else {
		planOpts := o
		if jv == nil {
			planOpts.Observer = engine.NopObserver{}
		}
		if p, err = engine.MakePlan(context.Background(), planOpts, loaded); err != nil {
			c.diagnostics(diags, loaded, jv)
			c.fail(jv, err.Error())
			return 1
		}
		// Printed as text even with -json, as they always were.
		c.diagnostics(diags, loaded, nil)
		if jv != nil {
			jv.plan(p)
		} else {
			var b strings.Builder
			renderPlan(&b, p, c.col())
			io.WriteString(c.streams.Out, b.String())
		}
		if !p.HasChanges() {
			return 0
		}
		if !op.AutoApprove {
			if ok, code := c.approve(jv); !ok {
				return code
			}
		}
	}
	prior, err := engine.ReadStateOf(o)
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	if jv == nil {
		io.WriteString(c.streams.Out, "\n")
	}
	if pv, ok := observer.(*progressView); ok {
		beatStop := make(chan struct{})
		defer close(beatStop)
		go pv.heartbeat(10*time.Second, beatStop)
	}
	res, err := engine.Apply(ctx, o, p, prior, stop)
	if res != nil {
		c.summary(jv, p, res)
	}
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	if !res.OK() {
		return 1
	}
	return 0
}

func (c *ApplyCommand) approve(jv *jsonView) (bool, int) {
	if !c.streams.InTTY {
		c.fail(jv, fmt.Sprintf("%s needs approval, and stdin is not a terminal: run it with -auto-approve, or apply a saved plan (eggo plan -out=FILE; eggo apply FILE)", c.name()))
		return false, 1
	}
	q := "\nDo you want to perform these actions?\n  eggo will perform the actions described above.\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: "
	if c.destroy {
		q = "\nDo you really want to destroy all resources?\n  eggo will destroy everything in the state. There is no undo.\n  Only 'yes' will be accepted to confirm.\n\n  Enter a value: "
	}
	answer, err := c.ask(q)
	if err != nil && !errors.Is(err, io.EOF) {
		c.fail(jv, err.Error())
		return false, 1
	}
	if answer != "yes" {
		c.errorf("%s cancelled: the answer was not \"yes\". Nothing was changed.", c.name())
		return false, 1
	}
	return true, 0
}

func (c *ApplyCommand) summary(jv *jsonView, p *engine.Plan, r *engine.Result) {
	if jv != nil {
		for _, w := range r.HookWarnings {
			jv.diagnostic("warning", "hook failed; its policy continued", w)
		}
		jv.summary(r, c.name())
		for _, f := range r.Failures(p) {
			jv.diagnostic("error", fmt.Sprintf("%s failed", f.Addr), f.Err.Error())
		}
		return
	}
	col := c.col()
	for _, w := range r.HookWarnings {
		fmt.Fprintf(c.streams.Out, "\n%s %s\n", col.c(yellow, "Warning:"), w)
	}
	figures := fmt.Sprintf("%s, %s, %s uploaded", roundDur(r.Took), pluralWord(int(r.Connections), "connection"), resources.HumanBytes(r.Bytes))
	if r.OK() {
		what := "Apply complete!"
		if c.destroy {
			what = "Destroy complete!"
		}
		fmt.Fprintf(c.streams.Out, "\n%s Resources: %d added, %d changed, %d destroyed. (%s)\n", col.c(green, what), r.Counts.Add, r.Counts.Change, r.Counts.Destroy, figures)
		return
	}
	fmt.Fprintf(c.streams.Out, "\nResources: %d added, %d changed, %d destroyed. (%s)\n", r.Counts.Add, r.Counts.Change, r.Counts.Destroy, figures)
	n := len(r.Failed)
	c.errorf("%s did not finish: %s failed, %d skipped, %d not started. State keeps what was done; fix the cause and run %s again.\n%s",
		c.name(), pluralWord(n, "resource"), len(r.Skipped), len(r.NotStarted), c.name(), engine.FailureSummary(p, r))
}
