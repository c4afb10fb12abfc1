package engine

import (
	"errors"
	"io/fs"
	"sync/atomic"

	"github.com/eggo-project/eggo/state"
)

// statePrefetch reads the state file while the configuration loads. Where
// the state lives and who may read its secrets come from the
// configuration, but opening the secrets needs only the identities, known
// from the command line: so `eggo plan` starts reading the file it would
// read without a backend block (the state of a 10,000-node cluster takes
// as long to read as the configuration to load), and uses what it read
// only if the configuration names that same file. Otherwise it is thrown
// away and the state is read as always.
type statePrefetch struct {
	path   string
	done   chan struct{}
	taken  atomic.Bool // handed over once: the state is the caller's to change
	usable bool        // the identities were read: the file was read as a plan reads it
	st     *state.State
	err    error
}

// prefetchState starts reading the state file at path (the file -state or
// the directory names) with the identities in the files given. A plan
// only: the read's keyring remembers each ciphertext it opened, which a
// write must reuse (so an unchanged secret is written unchanged), and a
// plan never writes.
func prefetchState(path string, identities []string) *statePrefetch {
	p := &statePrefetch{path: path, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		kr, err := newKeyring(nil, identities)
		if err != nil {
			return // Open says what is wrong with them
		}
		p.usable = true
		p.st, p.err = state.ReadWith(p.path, kr)
	}()
	return p
}

// take is what the prefetch read, if o's backend is the same file; ok is
// false when o must read for itself.
func (p *statePrefetch) take(o options) (st *state.State, err error, ok bool) {
	if p == nil || !o.fileBackend || o.StatePath != p.path || p.taken.Swap(true) {
		return nil, nil, false
	}
	<-p.done
	if !p.usable {
		return nil, nil, false
	}
	if errors.Is(p.err, fs.ErrNotExist) {
		return nil, nil, true
	}
	return p.st, p.err, true
}
