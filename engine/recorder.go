package engine

import (
	"slices"
	"sort"
	"sync"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// recorder owns the state during an apply. Every finished resource is
// persisted before its dependents start: record() returns only after a write
// that includes the change reached the disk. Writes are group-committed, so
// resources finishing together share one write instead of queueing.
type recorder struct {
	store state.Backend

	mu       sync.Mutex
	st       *state.State
	gen      uint64 // bumped by every change
	written  uint64 // highest gen on disk
	writing  bool
	cond     *sync.Cond
	writeErr error
}

func newRecorder(store state.Backend, st *state.State) *recorder {
	r := &recorder{store: store, st: st}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// update applies fn to the state and waits until it is on disk.
func (r *recorder) update(fn func(st *state.State)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(r.st)
	r.gen++
	mine := r.gen
	for r.written < mine {
		if r.writeErr != nil {
			return r.writeErr
		}
		if !r.writing {
			r.writing = true
			gen := r.gen
			r.st.BumpSerial()
			// A shallow copy is enough: resources are replaced whole, never
			// edited in place, so the writer can encode it unlocked.
			snap := *r.st
			snap.Resources = slices.Clone(r.st.Resources)
			r.mu.Unlock()
			err := r.store.Write(&snap)
			r.mu.Lock()
			r.writing = false
			if err != nil {
				r.writeErr = err
			} else if gen > r.written {
				r.written = gen
			}
			r.cond.Broadcast()
			continue
		}
		r.cond.Wait()
	}
	return r.writeErr
}

// snapshot returns the state as recorded so far.
func (r *recorder) snapshot() *state.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st
}

// lookup returns the recorded resource at addr (a copy; its attribute map
// is shared but never edited in place).
func (r *recorder) lookup(addr string) (state.Resource, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.st.Lookup(addr)
	if !ok {
		return state.Resource{}, false
	}
	return *res, true
}

// recordedAt returns the object recorded at addr now.
func (r *recorder) recordedAt(addr string) (resources.Object, bool) {
	res, ok := r.lookup(addr)
	if !ok {
		return resources.Object{}, false
	}
	return *toObject(&res), true
}

// recorded returns the objects of a kind as recorded now, sorted by address.
func (r *recorder) recorded(kind string) []resources.Object {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []resources.Object
	for i := range r.st.Resources {
		if res := &r.st.Resources[i]; res.Kind == kind {
			out = append(out, *toObject(res))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}
