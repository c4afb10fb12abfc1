package command

import (
	"flag"
	"io"
	"path/filepath"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
)

// stateArgs are a state command's flags and where its state lives.
type stateArgs struct {
	o    engine.Options
	cfg  *config.Config // nil when the directory has no configuration
	rest []string
	js   bool
}

// parseStateArgs parses -state, -json and -identity (plus extra flags) and
// finds the state: the configuration's backend block when the directory
// has a configuration, else the state file. A state command's errors are
// text on stderr whatever the format: only its result follows -json.
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
	a.o = engine.Options{Dir: ".", StatePath: *path, Identities: identityFiles(ids, m.streams.Env),
		Vars: config.VarInput{Vars: vars, VarFiles: varFiles, Env: m.streams.Env}}
	fs.Visit(func(f *flag.Flag) { a.o.StatePathSet = a.o.StatePathSet || f.Name == "state" })
	if hasConfig(".") {
		loaded, diags := engine.LoadConfig(a.o)
		if diags.HasErrors() {
			m.text().Diagnostics(diags, loaded)
			return nil, false
		}
		a.cfg = loaded.Config
	}
	if err := engine.OpenBackend(&a.o, a.cfg); err != nil {
		m.errorf("%v", err)
		return nil, false
	}
	return a, true
}

func hasConfig(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	return len(m) > 0
}

// readState reads the state; a missing one is an error naming where.
func (m *meta) readState(a *stateArgs) (*state.State, bool) {
	st, err := engine.ReadStateOf(a.o)
	if err != nil {
		m.errorf("%v", err)
		return nil, false
	}
	if st == nil {
		m.errorf("no state at %s: nothing has been applied yet", a.o.Backend.Describe())
		return nil, false
	}
	return st, true
}

// lockState locks the state for a state command; nil after an error.
func (m *meta) lockState(a *stateArgs, op string) state.Unlocker {
	l, err := a.o.Backend.Lock(op)
	if err != nil {
		m.errorf("%v", err)
		return nil
	}
	return l
}
