package command

import (
	"time"

	"github.com/eggo-project/eggo/resources"
)

// quietObserver ignores a run's progress: the human view plans silently.
// It is the command's own rather than the engine's no-op, so that only
// runObserver names the engine's interface.
type quietObserver struct{}

func (quietObserver) Refreshing(string)                                 {}
func (quietObserver) PreApply(*resources.Change)                        {}
func (quietObserver) Progress(string, string)                           {}
func (quietObserver) PostApply(*resources.Change, error, time.Duration) {}
