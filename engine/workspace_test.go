package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace's operations say what they need instead of relying on an
// order: Apply and RekeyHost refuse without the state's lock, a plan not
// made by the workspace is checked as a saved one, and a workspace opened
// without its state (or closed) refuses what needs the state.
func TestWorkspaceOperationsSayWhatTheyNeed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeWorkers(t, dir, "10.244.0.0/16", "w0")
	ws, err := Open(ctx, Request{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p, err := ws.Plan(ctx, PlanOptions{NoRefresh: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Apply(ctx, p, ApplyOptions{}, nil, nil); err == nil || !strings.Contains(err.Error(), "lock") {
		t.Errorf("apply without the lock: %v", err)
	}
	if _, err := ws.RekeyHost(ctx, "m0", ""); err == nil || !strings.Contains(err.Error(), "lock") {
		t.Errorf("rekey-host without the lock: %v", err)
	}
	if err := ws.Lock("test"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.StatePath() + ".lock"); err != nil {
		t.Errorf("Lock left no lock file beside the state: %v", err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.StatePath() + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close kept the lock: %v", err)
	}
	if err := ws.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := ws.State(); err == nil {
		t.Error("a closed workspace read the state")
	}

	// The plan saved, the configuration changed: another workspace's
	// Apply refuses it before it reads the state.
	saved := filepath.Join(t.TempDir(), "plan")
	if err := SavePlan(saved, p, PlanSeal{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadPlan(saved, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeWorkers(t, dir, "10.244.0.0/16", "w0", "w1")
	later, err := Open(ctx, Request{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	if err := later.Lock("test"); err != nil {
		t.Fatal(err)
	}
	if _, err := later.Apply(ctx, loaded, ApplyOptions{}, nil, nil); err == nil || !strings.Contains(err.Error(), "configuration changed") {
		t.Errorf("a saved plan of another configuration: %v", err)
	}

	v, err := Open(ctx, Request{Dir: dir, NoState: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if _, err := v.Plan(ctx, PlanOptions{NoRefresh: true}, nil); err == nil {
		t.Error("a workspace without its state planned")
	}
}

// Open reports a configuration's errors as a ConfigError carrying the
// files; a state subcommand's directory without a configuration is its
// state file alone.
func TestOpenConfiguration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte("cluster \"c\" {\n  bogus = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, Request{Dir: dir})
	var cfgErr *ConfigError
	if !errors.As(err, &cfgErr) || !cfgErr.Loaded.Diags.HasErrors() || cfgErr.Loaded.Files == nil {
		t.Fatalf("a broken configuration: %v", err)
	}

	empty := t.TempDir()
	if _, err := Open(ctx, Request{Dir: empty}); err == nil {
		t.Error("a directory without a configuration opened")
	}
	ws, err := Open(ctx, Request{Dir: empty, ConfigOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Loaded().Config != nil || ws.StatePath() != filepath.Join(empty, "eggo.state") {
		t.Errorf("no configuration: %+v, state %s", ws.Loaded(), ws.StatePath())
	}
	if st, err := ws.State(); st != nil || err != nil {
		t.Errorf("no state yet: %v, %v", st, err)
	}
}

// TestOpenTakesTheRequestedLock: a Request's Lock is held from Open to
// Close, so a second workspace asking for it is refused while the first
// is open (and gets it afterwards).
func TestOpenTakesTheRequestedLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeWorkers(t, dir, "10.244.0.0/16", "w0")
	ws, err := Open(ctx, Request{Dir: dir, Lock: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.StatePath() + ".lock"); err != nil {
		t.Errorf("Open with Lock left no lock file beside the state: %v", err)
	}
	if other, err := Open(ctx, Request{Dir: dir, Lock: "destroy"}); err == nil {
		other.Close()
		t.Error("a second workspace took the lock the first holds")
	} else if !strings.Contains(err.Error(), "apply") {
		t.Errorf("the refusal does not name the holder's operation: %v", err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ctx, Request{Dir: dir, Lock: "destroy"})
	if err != nil {
		t.Fatalf("the lock after Close: %v", err)
	}
	again.Close()
}
