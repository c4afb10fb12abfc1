package engine

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// planDesired plans ds against prior in a run of its own, as Workspace.Plan does
// after expanding a configuration.
func planDesired(ctx context.Context, o options, ds []resources.Desired, prior *state.State) (*Plan, error) {
	have, err := recordedObjects(prior, kindIndex(o.Kinds))
	if err != nil {
		return nil, err
	}
	rc, done := o.runContext(planRun(o, nil, have))
	defer done()
	return plan(ctx, o, rc, ds, prior, have)
}

// readStateFile reads the state file at path without a keyring; (nil,
// nil) when there is none yet.
func readStateFile(path string) (*state.State, error) {
	st, err := state.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}

// planWith opens req's workspace, plans in it without refreshing (no host
// is reachable here) and closes it, as `eggo plan -refresh=false` does.
func planWith(t testing.TB, req Request) (*Plan, *Loaded, error) {
	t.Helper()
	ws, err := Open(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p, err := ws.Plan(context.Background(), PlanOptions{NoRefresh: true}, nil)
	return p, ws.Loaded(), err
}
