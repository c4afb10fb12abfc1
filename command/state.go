package command

import (
	"fmt"
	"strings"

	"github.com/hashicorp/cli"

	"github.com/eggo-project/eggo/internal/text"
)

// StateCommand is the `eggo state` group.
type StateCommand struct{}

func (c *StateCommand) Synopsis() string { return "Inspect and edit the state" }
func (c *StateCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state <subcommand> [options] [args]

Subcommands:
  list        List the resources in the state
  show ADDR   Show one resource's attributes (secrets hidden)
  rm ADDR...  Forget resources without touching their hosts
  pull        Print the state as its backend holds it (secrets stay encrypted)
  push FILE   Replace the backend's state with FILE (stale pushes refused)
  migrate     Move the state between the file and etcd or kubernetes
  rekey-host NODE  Accept a reinstalled host's new SSH host key

Exit codes: 0 success, 1 error.
`
}
func (c *StateCommand) Run([]string) int { return cli.RunResultHelp }

// StateListCommand is `eggo state list`.
type StateListCommand struct{ *meta }

func (c *StateListCommand) Synopsis() string { return "List the resources in the state" }
func (c *StateListCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state list [-state=PATH] [PREFIX...]

  Lists the addresses of the resources in the state, one per line, sorted.
  With PREFIX arguments, only addresses starting with one of them.

` + stateFlagsHelp + `

Exit codes: 0 success, 1 error.
`
}
func (c *StateListCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("state list", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	st, ok := c.readState(a)
	if !ok {
		return 1
	}
	for _, r := range st.Resources {
		if matchesAny(r.Address, a.rest) {
			fmt.Fprintln(c.streams.Out, safeAddr(r.Address))
		}
	}
	return 0
}

func matchesAny(addr string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(addr, p) {
			return true
		}
	}
	return false
}

// StateShowCommand is `eggo state show ADDR`.
type StateShowCommand struct{ *meta }

func (c *StateShowCommand) Synopsis() string { return "Show one resource in the state" }
func (c *StateShowCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state show [-state=PATH] [-json] ADDR

  Shows one resource's recorded attributes. Sensitive values are hidden.

` + stateFlagsHelp + `

Exit codes: 0 success, 1 error (no such resource).
`
}
func (c *StateShowCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("state show", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if len(a.rest) != 1 {
		c.errorf("usage: eggo state show [-state=PATH] ADDR")
		return 1
	}
	st, ok := c.readState(a)
	if !ok {
		return 1
	}
	r, found := st.Lookup(a.rest[0])
	if !found {
		c.errorf("%s is not in the state %s (see eggo state list)", a.rest[0], a.ws.Backend().Describe())
		return 1
	}
	c.view(a.js).Resource(r)
	return 0
}

// StateRmCommand is `eggo state rm`.
type StateRmCommand struct{ *meta }

func (c *StateRmCommand) Synopsis() string { return "Forget resources without touching their hosts" }
func (c *StateRmCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state rm [-state=PATH] ADDR...

  Removes resources from the state. Nothing on any host is changed: eggo
  simply stops managing them (a later apply would create them again if they
  are still in the configuration). The previous state is kept as
  PATH.backup.

` + stateFlagsHelp + `

Exit codes: 0 success, 1 error (an address not in the state changes nothing).
`
}
func (c *StateRmCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("state rm", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	rest := a.rest
	if len(rest) == 0 {
		c.errorf("usage: eggo state rm [-state=PATH] ADDR...")
		return 1
	}
	if !c.lockState(a, "state rm") {
		return 1
	}
	st, ok := c.readState(a)
	if !ok {
		return 1
	}
	for _, addr := range rest {
		if _, found := st.Lookup(addr); !found {
			c.errorf("%s is not in the state %s; nothing was removed", addr, a.ws.Backend().Describe())
			return 1
		}
	}
	for _, addr := range rest {
		st.Remove(addr)
	}
	st.BumpSerial()
	if err := a.ws.Backend().Write(st); err != nil {
		c.errorf("%v", err)
		return 1
	}
	fmt.Fprintf(c.streams.Out, "Removed %s from the state.\n", text.Plural(len(rest), "resource"))
	return 0
}
