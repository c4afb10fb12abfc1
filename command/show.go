package command

import (
	"fmt"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/state"
)

// ShowCommand is `eggo show`.
type ShowCommand struct{ *meta }

func (c *ShowCommand) Synopsis() string { return "Show the state or a saved plan" }

func (c *ShowCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] show [-state=PATH] [-json] [PLANFILE]

  Without PLANFILE, shows every resource in the state with its attributes
  (sensitive values hidden) and the outputs; with -json, as one JSON document. With PLANFILE, shows the saved
  plan as 'eggo plan' did.

` + stateFlagsHelp + `

Exit codes: 0 success, 1 error.
`
}

func (c *ShowCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("show", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if len(a.rest) > 1 {
		c.errorf("usage: eggo show [-state=PATH] [-json] [PLANFILE]")
		return 1
	}
	v := c.view(a.js)
	if len(a.rest) == 1 {
		p, err := a.ws.LoadPlan(a.rest[0])
		if err != nil {
			c.errorf("%v", err)
			return 1
		}
		v.Plan(p)
		return 0
	}
	st, err := a.ws.State()
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	if st == nil || len(st.Resources) == 0 {
		// The same sentence in either format, as it always was.
		fmt.Fprintln(c.streams.Out, "The state is empty: nothing has been applied.")
		return 0
	}
	v.State(st)
	return 0
}

// ForceUnlockCommand is `eggo force-unlock ID`.
type ForceUnlockCommand struct{ *meta }

func (c *ForceUnlockCommand) Synopsis() string { return "Remove a stale state lock" }
func (c *ForceUnlockCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] force-unlock [-state=PATH] LOCK_ID

  Removes the state lock with this ID, left by a run that died. The ID is in
  the error that refused your command. Only use it when that run is really
  gone: two runs writing one state lose work.

` + stateFlagsHelp + `

Exit codes: 0 unlocked, 1 error (no lock, or another ID).
`
}
func (c *ForceUnlockCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("force-unlock", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	rest := a.rest
	if len(rest) != 1 {
		c.errorf("usage: eggo force-unlock [-state=PATH] LOCK_ID")
		return 1
	}
	if err := a.ws.ForceUnlock(rest[0]); err != nil {
		c.errorf("%v", err)
		return 1
	}
	fmt.Fprintf(c.streams.Out, "The state lock %s was removed.\n", text.SafeLine(rest[0]))
	return 0
}

// VersionCommand is `eggo version`.
type VersionCommand struct{ *meta }

func (c *VersionCommand) Synopsis() string { return "Print eggo's version" }
func (c *VersionCommand) Help() string {
	return "Usage: eggo version\n\n  Prints eggo's version and the state format it writes.\n\nExit codes: 0.\n"
}
func (c *VersionCommand) Run([]string) int {
	fmt.Fprintf(c.streams.Out, "eggo v%s (state format %d)\n", engine.Version, stateFormat())
	return 0
}

func stateFormat() int { return state.FormatVersion }
