package engine

import (
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

// OpenBackend sets o.Keyring and o.Backend from the configuration: the
// secrets block's recipients with the identities in o.Identities, and the
// backend block (the state file at o.StatePath when there is none).
// Commands call it before locking; a caller that does not gets the state
// file without encryption.
func OpenBackend(o *Options, cfg *config.Config) error {
	o.defaults()
	kr, err := NewKeyring(cfg, o.Identities)
	if err != nil {
		return err
	}
	o.Keyring = kr
	be, err := openBackend(o, cfg)
	if err != nil {
		return err
	}
	be.SetKeyring(kr)
	o.Backend = be
	return nil
}

// NewKeyring is the keyring for cfg's recipients (none without a secrets
// block) and the identity files given.
func NewKeyring(cfg *config.Config, identityFiles []string) (*state.Keyring, error) {
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

// openBackend returns the configured backend.
func openBackend(o *Options, cfg *config.Config) (state.Backend, error) {
	var be *config.Backend
	if cfg != nil {
		be = cfg.Backend
	}
	switch {
	case be == nil:
		o.fileBackendPath = o.StatePath
		return state.FileBackend(o.StatePath), nil
	case be.Type == "file":
		if be.Path != "" && !o.StatePathSet {
			o.StatePath = be.Path
		}
		o.fileBackendPath = o.StatePath
		return state.FileBackend(o.StatePath), nil
	}
	open, ok := sharedBackends[be.Type]
	if !ok {
		return nil, fmt.Errorf("this eggo was built without the %q backend", be.Type)
	}
	return open(be, cfg.Cluster.Name)
}

// sharedBackends open the backends several machines share, by type; each
// registers itself from its own file (etcd_backend.go, kube_backend.go).
var sharedBackends = map[string]func(be *config.Backend, cluster string) (state.Backend, error){}

// ReadStateOf reads the state from o's backend (see OpenBackend); (nil,
// nil) when there is none yet.
func ReadStateOf(o Options) (*state.State, error) {
	o.defaults()
	return o.readState()
}

// readState reads the state from o's backend; (nil, nil) when there is none.
func (o Options) readState() (*state.State, error) {
	if st, err, ok := o.Prefetched.take(o); ok {
		return st, err
	}
	st, err := o.backend().Read()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}

// backend is o.Backend, or the state file at o.StatePath.
func (o Options) backend() state.Backend {
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
