package engine

import (
	"errors"
	"io/fs"

	"github.com/eggo-project/eggo/state"
)

// ReadState reads the state file; (nil, nil) when there is none yet.
func ReadState(path string) (*state.State, error) {
	st, err := state.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}
