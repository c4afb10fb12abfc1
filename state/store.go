package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/eggo-project/eggo/internal/atomicfile"
)

// defaultPerm is the mode of a new state file: it holds secrets until they
// are encrypted, so only its owner may read it. An existing file keeps
// its mode.
const defaultPerm os.FileMode = 0o600

// Store is the state file at one path, with its backup (PATH.backup) and
// lock (PATH.lock) beside it. Its methods are safe for concurrent use.
type Store struct {
	path    string
	keyring *Keyring   // seals on Write, opens on Read; nil: values as they are
	mu      sync.Mutex // serializes writes: backup and replace must not interleave
}

// NewStore returns the store for the state file at path.
func NewStore(path string) *Store { return &Store{path: path} }

// SetKeyring makes the store seal secrets with k on Write and open them on
// Read. Call it before the store is used.
func (st *Store) SetKeyring(k *Keyring) { st.keyring = k }

// Path is the state file's path.
func (st *Store) Path() string { return st.path }

// BackupPath is where Write keeps the previous version of the file.
func (st *Store) BackupPath() string { return backupPath(st.path) }

// LockPath is the lock file held while a command runs.
func (st *Store) LockPath() string { return lockPath(st.path) }

func backupPath(path string) string { return path + ".backup" }
func lockPath(path string) string   { return path + ".lock" }

// Read reads the state file; see Read.
func (st *Store) Read() (*State, error) { return ReadWith(st.path, st.keyring) }

// Write replaces the state file with s, atomically, after copying the
// current file to PATH.backup (atomically too). When the encoding of s is
// byte-for-byte the file's current content, nothing is written at all, so
// a run that changed nothing changes no file. Write never changes s; the
// caller owns Serial. It refuses a state that Read would refuse.
func (st *Store) Write(s *State) error {
	if problem := validate(s); problem != "" {
		return fmt.Errorf("refusing to write %s: %s", st.path, problem)
	}
	data, err := MarshalWith(s, st.keyring)
	if err != nil {
		return fmt.Errorf("writing %s: %w", st.path, err)
	}

	st.mu.Lock()
	defer st.mu.Unlock()
	perm := defaultPerm
	current, err := os.ReadFile(st.path)
	switch {
	case err == nil:
		if bytes.Equal(current, data) {
			return nil
		}
		if info, statErr := os.Stat(st.path); statErr == nil {
			perm = info.Mode().Perm()
		}
		if err := atomicfile.Write(backupPath(st.path), current, perm); err != nil {
			return fmt.Errorf("backing up %s before replacing it: %w", st.path, err)
		}
	case errors.Is(err, fs.ErrNotExist):
		// First write: nothing to back up.
	default:
		return fmt.Errorf("reading %s before replacing it: %w", st.path, err)
	}
	return atomicfile.Write(st.path, data, perm)
}
