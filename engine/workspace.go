package engine

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kinds"
	"github.com/eggo-project/eggo/state"
)

// Request is what a Workspace is opened with, as plain data: where the
// configuration and the state are, who may open the state's secrets, and
// what the command line adds. Open reads it once and fills nothing in.
type Request struct {
	Dir       string          // configuration directory (default ".")
	Vars      config.VarInput // -var, -var-file, environment
	StatePath string          // default DIR/eggo.state
	// StatePathSet: StatePath was given explicitly (-state), so it wins
	// over a backend "file" block's path.
	StatePathSet bool
	// Identities are files holding the operator's private keys (age
	// identities or SSH keys) that open the state's sealed secrets.
	Identities []string
	// CommandHooks are the hook flags (--prehook …): they join the HCL
	// hooks for this workspace's runs only.
	CommandHooks []config.HookFlag
	// Destroy opens the workspace to destroy the cluster: its plans delete
	// everything in the state, and CommandHooks are cleanup hooks (which
	// is why it is known when the configuration loads).
	Destroy bool
	Log     hclog.Logger // default: nothing is logged
	// Kinds are the resource kinds to plan and apply with (nil:
	// kinds.All(); tests and tools plan with fewer).
	Kinds []resources.Kind
	// PrefetchState reads the state file while the configuration loads,
	// for a workspace opened to plan (see statePrefetch).
	PrefetchState bool
	// ConfigOptional: a directory without *.hcl files is no error. The
	// workspace then has no configuration, and its state is the file at
	// StatePath (the state subcommands, which need only the state).
	ConfigOptional bool
	// NoState opens the configuration alone: no backend, keyring, state
	// or host (eggo validate). Only Loaded and Validate work then.
	NoState bool
	// Lock, when set, is the operation ("apply", "destroy" …) Open takes
	// the state's lock for, held until Close: a plan and the apply of it
	// under one lock, as the command that does both needs.
	Lock string
}

// withDefaults is r with its defaults: the one place they are applied.
func (r Request) withDefaults() Request {
	if r.Dir == "" {
		r.Dir = "."
	}
	if r.StatePath == "" {
		r.StatePath = filepath.Join(r.Dir, "eggo.state")
	}
	if r.Log == nil {
		r.Log = hclog.NewNullLogger()
	}
	if r.Kinds == nil {
		r.Kinds = kinds.All()
	}
	return r
}

// Workspace is one configuration and the state it manages, opened once:
// the configuration loaded, the backend and keyring open, and the
// connections a plan and the apply that follows it share. Its methods are
// the operations; Close releases everything it holds. A Workspace is used
// by one goroutine at a time.
type Workspace struct {
	req       Request // with its defaults
	loaded    *Loaded
	statePath string // -state, a backend "file" block's path, or DIR/eggo.state
	keyring   *state.Keyring
	backend   state.Backend // nil with NoState, and once closed
	// fileBackend: backend is the state file at statePath (a prefetch of
	// that file can stand for reading it).
	fileBackend bool
	prefetch    *statePrefetch        // taken by the first Plan, if any
	session     *resources.RunContext // made by the first operation that connects
	unlock      state.Unlocker        // the state's lock, once Lock took it
	planned     map[*Plan]bool        // the plans Plan made (Apply checks any other as a saved one)
	// hookRunner runs hook steps (nil: the real one); engine tests fake it.
	hookRunner hookRunner
}

// ConfigError is Open's error when the configuration has errors: its
// diagnostics, with the files they point into.
type ConfigError struct{ Loaded *Loaded }

func (e *ConfigError) Error() string { return e.Loaded.Diags.Error() }

// Open loads r's configuration (while the state file is read, with
// r.PrefetchState), then opens the backend the configuration names, with
// the keyring its secrets block and r.Identities make. A configuration
// with errors is a *ConfigError; its warnings are in Loaded().Diags.
func Open(ctx context.Context, r Request) (*Workspace, error) {
	r = r.withDefaults()
	w := &Workspace{req: r, statePath: r.StatePath, loaded: &Loaded{}, planned: map[*Plan]bool{}}
	if r.PrefetchState && !r.NoState {
		w.prefetch = prefetchState(r.StatePath, r.Identities)
	}
	if !r.ConfigOptional || hasConfig(r.Dir) {
		w.loaded = loadConfig(r)
		if w.loaded.Diags.HasErrors() {
			return nil, &ConfigError{Loaded: w.loaded}
		}
	}
	if r.NoState {
		return w, nil
	}
	if err := w.openBackend(ctx); err != nil {
		return nil, err
	}
	if r.Lock != "" {
		if err := w.Lock(r.Lock); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// Loaded is the configuration the workspace loaded (its Config is nil when
// there is none: a state subcommand's directory without one).
func (w *Workspace) Loaded() *Loaded { return w.loaded }

// StatePath is where the state file is: -state, the backend "file"
// block's path, or DIR/eggo.state. It names the audit log and the
// state's backup and lock whatever the backend.
func (w *Workspace) StatePath() string { return w.statePath }

// AuditLogPath is the hook runs' audit log beside the state file.
func (w *Workspace) AuditLogPath() string { return AuditLogPath(w.statePath) }

// Backend is where the state lives, opened with the workspace's keyring,
// for the state subcommands that move the state whole (pull, push,
// migrate); SetKeyring(nil) on it reads and writes the state as stored.
func (w *Workspace) Backend() state.Backend { return w.backend }

// Lock takes the state's lock for operation (apply, state rm …), held
// until Close. Whatever writes the state runs under it: Apply and
// RekeyHost refuse to run without it.
func (w *Workspace) Lock(operation string) error {
	if err := w.needs(false); err != nil {
		return err
	}
	if w.unlock != nil {
		return errorf("the state is locked already by this workspace")
	}
	l, err := w.backend.Lock(operation)
	if err != nil {
		return err
	}
	w.unlock = l
	return nil
}

// ForceUnlock removes the state lock whose ID is id, left by a run that
// died: a shared backend's (etcd revokes the holder's lease, kubernetes
// deletes its Lease), or the lock file beside the state file.
func (w *Workspace) ForceUnlock(id string) error {
	if err := w.needs(false); err != nil {
		return err
	}
	if shared, ok := w.backend.(interface{ ForceUnlock(string) error }); ok {
		return shared.ForceUnlock(id)
	}
	return state.ForceUnlock(w.statePath, id)
}

// Close closes the workspace's connections, releases the state's lock if
// it holds it, and closes the backend; the workspace is done with. A
// second Close does nothing.
func (w *Workspace) Close() error {
	var errs []error
	if w.session != nil {
		errs = append(errs, w.session.Close())
		w.session = nil
	}
	if w.unlock != nil {
		errs = append(errs, w.unlock.Unlock())
		w.unlock = nil
	}
	if c, ok := w.backend.(interface{ Close() error }); ok {
		errs = append(errs, c.Close())
	}
	w.backend = nil // the operations refuse from now on
	return errors.Join(errs...)
}
