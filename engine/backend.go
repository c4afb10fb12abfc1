package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
)

// openBackend opens the keyring and the backend the configuration names.
func (w *Workspace) openBackend(ctx context.Context) error {
	cfg := w.loaded.Config
	kr, err := newKeyring(cfg, w.req.Identities)
	if err != nil {
		return err
	}
	be, path, file, err := chooseBackend(ctx, cfg, w.req.StatePath, w.req.StatePathSet)
	if err != nil {
		return err
	}
	be.SetKeyring(kr)
	w.keyring, w.backend, w.statePath, w.fileBackend = kr, be, path, file
	return nil
}

// newKeyring is the keyring for cfg's recipients (none without a secrets
// block) and the identity files given.
func newKeyring(cfg *config.Config, identityFiles []string) (*state.Keyring, error) {
	var ids []age.Identity
	for _, f := range identityFiles {
		got, err := state.ReadIdentities(expandHome(f))
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
	}
	var recipients []string
	if cfg != nil && cfg.Secrets != nil {
		recipients = cfg.Secrets.Recipients
	}
	return state.NewKeyring(recipients, ids)
}

// chooseBackend opens the backend cfg's backend block names: the state
// file at statePath without one, or at the "file" block's path unless
// statePath was given explicitly. path is where the state file is then;
// file says the backend is that file.
func chooseBackend(ctx context.Context, cfg *config.Config, statePath string, statePathSet bool) (be state.Backend, path string, file bool, err error) {
	var b *config.Backend
	if cfg != nil {
		b = cfg.Backend
	}
	switch {
	case b == nil:
		return state.FileBackend(statePath), statePath, true, nil
	case b.Type == "file":
		if b.Path != "" && !statePathSet {
			statePath = b.Path
		}
		return state.FileBackend(statePath), statePath, true, nil
	}
	open, ok := sharedBackends[b.Type]
	if !ok {
		return nil, statePath, false, fmt.Errorf("this eggo was built without the %q backend", b.Type)
	}
	be, err = open(ctx, b, cfg.Cluster.Name)
	return be, statePath, false, err
}

// sharedBackends open the backends several machines share, by type; each
// registers itself from its own file (etcd_backend.go, kube_backend.go).
var sharedBackends = map[string]func(ctx context.Context, be *config.Backend, cluster string) (state.Backend, error){}

// readState reads the state from o's backend (or what the prefetch read
// of it); (nil, nil) when there is none. A state holding a record eggo
// would not have written is refused (checkRecords).
func (o options) readState() (*state.State, error) {
	st, err := o.readStored()
	if err != nil {
		return nil, err
	}
	if err := checkRecords(st, o.Kinds, o.backend().Describe()); err != nil {
		return nil, err
	}
	return st, nil
}

func (o options) readStored() (*state.State, error) {
	if st, err, ok := o.Prefetched.take(o); ok {
		return st, err
	}
	st, err := o.backend().Read()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}

// backend is o.Backend, or the state file at o.StatePath (the engine's
// tests, which open no workspace).
func (o options) backend() state.Backend {
	if o.Backend != nil {
		return o.Backend
	}
	b := state.FileBackend(o.StatePath)
	b.SetKeyring(o.Keyring)
	return b
}

// expandHome turns a leading "~/" into the user's home directory.
func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}
