package state

// Backend is where a state lives: the file (Store) or a shared store
// (etcd, a Kubernetes namespace). Every command reads, locks and writes
// through one.
type Backend interface {
	// Describe names the backend in messages: the file's path, the etcd
	// key and endpoints, or the Kubernetes Secret and server.
	Describe() string
	// Read returns the state; errors.Is(err, fs.ErrNotExist) when there is
	// none yet.
	Read() (*State, error)
	// Write replaces the state. A shared backend refuses a write whose
	// base is not what it holds now (someone else wrote since this
	// process read it): a lost update is impossible.
	Write(*State) error
	// Lock locks the state for operation for the whole command.
	Lock(operation string) (Unlocker, error)
	// SetKeyring seals secrets on Write and opens them on Read.
	SetKeyring(*Keyring)
}

// Unlocker releases a lock.
type Unlocker interface{ Unlock() error }

// Describe is the state file's path.
func (st *Store) Describe() string { return st.path }

// lockFor locks the state file for operation (Backend's Lock).
func (st *Store) lockFor(operation string) (Unlocker, error) { return AcquireLock(st.path, operation) }

// FileBackend is the state file at path as a Backend.
func FileBackend(path string) Backend { return fileBackend{NewStore(path)} }

type fileBackend struct{ *Store }

func (f fileBackend) Lock(operation string) (Unlocker, error) { return f.lockFor(operation) }
