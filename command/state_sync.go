package command

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/state"
)

// StatePullCommand is `eggo state pull`.
type StatePullCommand struct{ *meta }

func (c *StatePullCommand) Synopsis() string { return "Print the state as its backend holds it" }
func (c *StatePullCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state pull [-state=PATH]

  Prints the state from its backend (the file, etcd or kubernetes) to
  stdout exactly as stored: secrets stay encrypted. Save it with
  'eggo state pull > FILE'.

` + stateFlagsHelp + `

Exit codes: 0 success, 1 error.
`
}
func (c *StatePullCommand) Run(args []string) int {
	a, ok := c.parseStateArgs("state pull", args, nil)
	if !ok {
		return 1
	}
	defer a.ws.Close()
	a.ws.Backend().SetKeyring(nil) // as stored: nothing opened, nothing sealed anew
	st, ok := c.readState(a)
	if !ok {
		return 1
	}
	data, err := state.Marshal(st)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	c.streams.Out.Write(data)
	return 0
}

// StatePushCommand is `eggo state push FILE`.
type StatePushCommand struct{ *meta }

func (c *StatePushCommand) Synopsis() string { return "Replace the backend's state with a file" }
func (c *StatePushCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state push [-force] FILE

  Writes the state in FILE (as 'eggo state pull' printed it) to the backend,
  under its lock. Refused when the backend holds a state of another lineage
  (another cluster), or a newer serial than FILE (FILE is stale: someone
  applied since it was pulled), or the same serial with other content. A
  write that races another is refused by the backend's version check
  (etcd's revision, the Kubernetes Secret's resourceVersion).

Options:
  -force    Push even so (the backend's state is overwritten).

` + stateFlagsHelp + `

Exit codes: 0 pushed, 1 error (nothing written).
`
}
func (c *StatePushCommand) Run(args []string) int {
	var force bool
	a, ok := c.parseStateArgs("state push", args, func(fs *flag.FlagSet) { fs.BoolVar(&force, "force", false, "") })
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if len(a.rest) != 1 {
		c.errorf("usage: eggo state push [-force] FILE")
		return 1
	}
	pushed, err := state.Read(a.rest[0])
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	if !c.lockState(a, "state push") {
		return 1
	}
	a.ws.Backend().SetKeyring(nil) // written as the file holds it
	if err := pushInto(a.ws.Backend(), pushed, a.rest[0], force); err != nil {
		c.errorf("%v", err)
		return 1
	}
	fmt.Fprintf(c.streams.Out, "Pushed %s (serial %d) to %s.\n", a.rest[0], pushed.Serial, a.ws.Backend().Describe())
	return 0
}

// pushInto writes st to be after the checks that keep a push from losing
// someone's work. be's own write check (a shared backend's version)
// covers a write that lands between this read and the write.
func pushInto(be state.Backend, st *state.State, from string, force bool) error {
	cur, err := be.Read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if cur != nil && !force {
		switch {
		case cur.Lineage != st.Lineage:
			return fmt.Errorf("refusing to push %s: %s holds another cluster's state (lineage %s, %s has %s); -force overwrites it",
				from, be.Describe(), cur.Lineage, from, st.Lineage)
		case cur.Serial > st.Serial:
			return fmt.Errorf("refusing to push %s: it is stale — %s is at serial %d, %s at %d (someone applied since it was pulled); pull, merge, and push again, or -force",
				from, be.Describe(), cur.Serial, from, st.Serial)
		case cur.Serial == st.Serial:
			a, _ := state.Marshal(cur)
			b, _ := state.Marshal(st)
			if !bytes.Equal(a, b) {
				return fmt.Errorf("refusing to push %s: %s has the same serial %d with other content; -force overwrites it", from, be.Describe(), st.Serial)
			}
		}
	}
	return be.Write(st)
}

// StateRekeyHostCommand is `eggo state rekey-host NODE`.
type StateRekeyHostCommand struct{ *meta }

func (c *StateRekeyHostCommand) Synopsis() string {
	return "Accept a reinstalled host's new SSH host key"
}
func (c *StateRekeyHostCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state rekey-host [-fingerprint=SHA256:...] NODE

  eggo pins each node's SSH host key in the state on first contact and
  refuses a different key afterwards. When a host was reinstalled on
  purpose, this fetches the key it presents now (without logging in),
  prints the old and the new fingerprint, and pins the new one.

Options:
  -fingerprint=SHA256:...   Pin only if the host presents this key (compare
                            with 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub'
                            run on the host's console).

` + stateFlagsHelp + `

Exit codes: 0 pinned, 1 error (nothing changed).
`
}
func (c *StateRekeyHostCommand) Run(args []string) int {
	var fp string
	a, ok := c.parseStateArgs("state rekey-host", args, func(fs *flag.FlagSet) { fs.StringVar(&fp, "fingerprint", "", "") })
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if len(a.rest) != 1 || a.ws.Loaded().Config == nil {
		c.errorf("usage: eggo state rekey-host [-fingerprint=SHA256:...] NODE (in the configuration's directory)")
		return 1
	}
	if !c.lockState(a, "state rekey-host") {
		return 1
	}
	r, err := a.ws.RekeyHost(context.Background(), a.rest[0], fp)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	old := text.SafeLine(r.Old) // the state's pin: anyone's text
	if old == "" {
		old = "(none pinned)"
	}
	fmt.Fprintf(c.streams.Out, "%s: host key %s → %s. Pinned in %s.\n", r.Node, old, r.New, a.ws.Backend().Describe())
	return 0
}
