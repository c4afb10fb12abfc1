package engine

import (
	"path/filepath"
	"testing"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/state"
)

func writeSerial(t *testing.T, path string, serial uint64) {
	t.Helper()
	s := state.New()
	s.Serial = serial
	if err := state.NewStore(path).Write(s); err != nil {
		t.Fatal(err)
	}
}

func serialRead(t *testing.T, o Options) uint64 {
	t.Helper()
	st, err := o.readState()
	if err != nil || st == nil {
		t.Fatalf("readState: %v, %v", st, err)
	}
	return st.Serial
}

// The state read while the configuration loads is the plan's only if the
// configuration names that file; it is handed over once.
func TestPrefetchedStateOnlyForTheSameFile(t *testing.T) {
	dir := t.TempDir()
	o := Options{Dir: dir}
	writeSerial(t, filepath.Join(dir, "eggo.state"), 5)
	p := PrefetchState(o)
	<-p.done
	writeSerial(t, filepath.Join(dir, "eggo.state"), 6) // what a read now finds

	o.Prefetched = p
	if err := OpenBackend(&o, &config.Config{}); err != nil {
		t.Fatal(err)
	}
	if got := serialRead(t, o); got != 5 {
		t.Errorf("no backend block: serial %d, want the prefetched 5", got)
	}
	if got := serialRead(t, o); got != 6 {
		t.Errorf("a second read: serial %d, want 6 read anew (the prefetched state was handed over)", got)
	}

	other := filepath.Join(dir, "other.state")
	writeSerial(t, other, 9)
	o2 := Options{Dir: dir, Prefetched: PrefetchState(Options{Dir: dir})}
	if err := OpenBackend(&o2, &config.Config{Backend: &config.Backend{Type: "file", Path: other}}); err != nil {
		t.Fatal(err)
	}
	if got := serialRead(t, o2); got != 9 {
		t.Errorf("backend file %s: serial %d, want its 9, not the prefetched default file", other, got)
	}

	// No state yet: none prefetched either.
	empty := t.TempDir()
	o3 := Options{Dir: empty, Prefetched: PrefetchState(Options{Dir: empty})}
	if err := OpenBackend(&o3, &config.Config{}); err != nil {
		t.Fatal(err)
	}
	if st, err := o3.readState(); st != nil || err != nil {
		t.Errorf("no state file: %v, %v", st, err)
	}
}
