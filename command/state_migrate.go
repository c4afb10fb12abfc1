package command

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/eggo-project/eggo/state"
)

// StateMigrateCommand is `eggo state migrate`.
type StateMigrateCommand struct{ *meta }

func (c *StateMigrateCommand) Synopsis() string {
	return "Move the state between the file and etcd or Kubernetes"
}
func (c *StateMigrateCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] state migrate -to=kubernetes|etcd|file [-state=PATH]

  Moves the state between the state file and the shared backend the
  configuration's backend block names (backend "kubernetes" or "etcd").

  -to=kubernetes, -to=etcd
             Copies the state file (eggo.state) into that backend (-to must
             name the configured one), then renames the file to
             eggo.state.migrated so no run uses it by mistake.
  -to=file   Copies the state from that backend into the state file, then
             deletes it from the backend; remove the backend block afterwards.

  Both sides are locked; secrets move as they are (still encrypted). The
  destination must not hold a state yet.

` + stateFlagsHelp + `

Exit codes: 0 migrated, 1 error (nothing moved).
`
}

func (c *StateMigrateCommand) Run(args []string) int {
	var to string
	a, ok := c.parseStateArgs("state migrate", args, func(fs *flag.FlagSet) { fs.StringVar(&to, "to", "", "") })
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if a.ws.Loaded().Config == nil || !a.ws.Loaded().Config.Backend.Shared() {
		c.errorf(`state migrate moves the state between the file and a shared backend: the configuration needs a backend "kubernetes" { ... } or backend "etcd" { ... } block`)
		return 1
	}
	kind := a.ws.Loaded().Config.Backend.Type
	file, shared := state.FileBackend(a.ws.StatePath()), a.ws.Backend()
	var from, dst state.Backend
	switch to {
	case kind:
		from, dst = file, shared
	case "file":
		from, dst = shared, file
	case "kubernetes", "etcd":
		c.errorf("state migrate -to=%s: the configuration's backend is %q; the state moves between the file and the backend the configuration names: write a backend %q block first", to, kind, to)
		return 1
	default:
		c.errorf("state migrate: -to must be kubernetes, etcd or file")
		return 1
	}
	unlock, ok := c.lockBoth(from, dst)
	if !ok {
		return 1
	}
	defer unlock()
	st, ok := c.copyState(from, dst)
	if !ok {
		return 1
	}
	if to == kind {
		moved := a.ws.StatePath() + ".migrated"
		if err := os.Rename(a.ws.StatePath(), moved); err != nil {
			c.errorf("the state is in %s now, but renaming %s failed: %v; remove it so no run uses it", dst.Describe(), a.ws.StatePath(), err)
			return 1
		}
		fmt.Fprintf(c.streams.Out, "Moved the state (serial %d) to %s. The file is kept as %s.\n", st.Serial, dst.Describe(), moved)
		return 0
	}
	if d, ok := from.(interface{ Delete() error }); ok {
		if err := d.Delete(); err != nil {
			c.errorf("the state is in %s now, but deleting it from %s failed: %v", a.ws.StatePath(), from.Describe(), err)
			return 1
		}
	}
	fmt.Fprintf(c.streams.Out, "Moved the state (serial %d) to %s and deleted it from %s. Remove the backend %q block now.\n",
		st.Serial, a.ws.StatePath(), from.Describe(), kind)
	return 0
}

// lockBoth locks both sides for the whole move, the source's removal
// included; unlock releases them.
func (c *StateMigrateCommand) lockBoth(from, dst state.Backend) (unlock func(), ok bool) {
	var held []state.Unlocker
	unlock = func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	for _, be := range []state.Backend{from, dst} {
		l, err := be.Lock("state migrate")
		if err != nil {
			c.errorf("%v", err)
			unlock()
			return nil, false
		}
		held = append(held, l)
	}
	return unlock, true
}

// copyState writes from's state to dst, which must hold none; secrets are
// copied as stored.
func (c *StateMigrateCommand) copyState(from, dst state.Backend) (*state.State, bool) {
	from.SetKeyring(nil)
	dst.SetKeyring(nil)
	st, err := from.Read()
	if err != nil {
		c.errorf("%v", err)
		return nil, false
	}
	if existing, err := dst.Read(); err == nil {
		c.errorf("%s already holds a state (serial %d, lineage %s): nothing was moved. Use 'eggo state push -force' to overwrite it deliberately", dst.Describe(), existing.Serial, existing.Lineage)
		return nil, false
	} else if !errors.Is(err, fs.ErrNotExist) {
		c.errorf("%v", err)
		return nil, false
	}
	if err := dst.Write(st); err != nil {
		c.errorf("%v", err)
		return nil, false
	}
	return st, true
}
