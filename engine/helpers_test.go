package engine

import (
	"context"
	"errors"
	"io/fs"
	"regexp"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// planDesired plans ds against prior in a run of its own, as MakePlan does
// after expanding a configuration.
func planDesired(ctx context.Context, o Options, ds []resources.Desired, prior *state.State) (*Plan, error) {
	o.defaults()
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

// base64Run is a stretch of base64 long enough to be a key or a
// fingerprint: random material that can hold a short name by chance.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=]{20,}`)

// namesWord reports whether text holds word as a word of its own outside
// base64 runs: a fingerprint such as SHA256:…Vh1f… names no node.
func namesWord(text, word string) bool {
	rest := base64Run.ReplaceAllString(text, " ")
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`).MatchString(rest)
}
