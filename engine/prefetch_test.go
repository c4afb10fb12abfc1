package engine

import (
	"context"
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

// opened is the workspace Open makes for cfg in dir, with the state file
// prefetched.
func opened(t *testing.T, dir string, cfg *config.Config) *Workspace {
	t.Helper()
	w := &Workspace{req: Request{Dir: dir, PrefetchState: true}.withDefaults(), loaded: &Loaded{Config: cfg}}
	w.prefetch = prefetchState(w.req.StatePath, nil)
	if err := w.openBackend(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// serialRead is the serial of the state a plan in w reads.
func serialRead(t *testing.T, w *Workspace) uint64 {
	t.Helper()
	st, err := w.planRun(PlanOptions{}, nil).readState()
	if err != nil || st == nil {
		t.Fatalf("readState: %v, %v", st, err)
	}
	return st.Serial
}

// The state read while the configuration loads is the first plan's only
// if the configuration names that file.
func TestPrefetchedStateOnlyForTheSameFile(t *testing.T) {
	dir := t.TempDir()
	writeSerial(t, filepath.Join(dir, "eggo.state"), 5)
	w := opened(t, dir, &config.Config{})
	<-w.prefetch.done
	writeSerial(t, filepath.Join(dir, "eggo.state"), 6) // what a read now finds
	if got := serialRead(t, w); got != 5 {
		t.Errorf("no backend block: serial %d, want the prefetched 5", got)
	}
	if got := serialRead(t, w); got != 6 {
		t.Errorf("a second plan: serial %d, want 6 read anew (the prefetched state was handed over)", got)
	}
	if st, err := w.State(); err != nil || st.Serial != 6 {
		t.Errorf("State: %v, %v; want serial 6, read anew", st, err)
	}

	other := filepath.Join(dir, "other.state")
	writeSerial(t, other, 9)
	w2 := opened(t, dir, &config.Config{Backend: &config.Backend{Type: "file", Path: other}})
	if got := serialRead(t, w2); got != 9 {
		t.Errorf("backend file %s: serial %d, want its 9, not the prefetched default file", other, got)
	}

	// No state yet: none prefetched either.
	w3 := opened(t, t.TempDir(), &config.Config{})
	if st, err := w3.planRun(PlanOptions{}, nil).readState(); st != nil || err != nil {
		t.Errorf("no state file: %v, %v", st, err)
	}
}
