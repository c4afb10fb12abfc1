package command

import (
	"flag"
	"io"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
)

// stateArgs are a state command's flags and its workspace.
type stateArgs struct {
	ws   *engine.Workspace // Loaded().Config is nil when the directory has no configuration
	rest []string
	js   bool
}

// parseStateArgs parses -state, -json and -identity (plus extra flags) and
// opens the workspace: the state is where the configuration's backend
// block says when the directory has a configuration, else the state file.
// A state command's errors are text on stderr whatever the format: only
// its result follows -json. The caller closes a.ws.
func (m *meta) parseStateArgs(name string, args []string, extra func(fs *flag.FlagSet)) (*stateArgs, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a := &stateArgs{}
	path := fs.String("state", "eggo.state", "")
	fs.BoolVar(&a.js, "json", false, "")
	var ids, vars, varFiles multiFlag
	fs.Var(&ids, "identity", "")
	// The configuration is loaded for its backend and secrets blocks, so
	// variables it needs can be given here too.
	fs.Var(&vars, "var", "")
	fs.Var(&varFiles, "var-file", "")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		m.errorf("%s: %v", name, err)
		return nil, false
	}
	a.rest = fs.Args()
	req := engine.Request{Dir: ".", StatePath: *path, Identities: identityFiles(ids, m.streams.Env),
		Vars: config.VarInput{Vars: vars, VarFiles: varFiles, Env: m.streams.Env}, ConfigOptional: true}
	fs.Visit(func(f *flag.Flag) { req.StatePathSet = req.StatePathSet || f.Name == "state" })
	ws, ok := m.open(req, m.text())
	if !ok {
		return nil, false
	}
	a.ws = ws
	return a, true
}

// readState reads the state; a missing one is an error naming where.
func (m *meta) readState(a *stateArgs) (*state.State, bool) {
	st, err := a.ws.State()
	if err != nil {
		m.errorf("%v", err)
		return nil, false
	}
	if st == nil {
		m.errorf("no state at %s: nothing has been applied yet", a.ws.Backend().Describe())
		return nil, false
	}
	return st, true
}

// lockState locks the state for a state command until the workspace
// closes; false after an error.
func (m *meta) lockState(a *stateArgs, op string) bool {
	if err := a.ws.Lock(op); err != nil {
		m.errorf("%v", err)
		return false
	}
	return true
}
