package engine

import (
	"path/filepath"

	"github.com/eggo-project/eggo/resources"
)

// runSpec is what sets one run's context apart: plan, apply and rekey
// differ only in these.
type runSpec struct {
	// pins are the host keys its SSH connections must present (nil: the
	// dialer the context has).
	pins *hostPins
	// recorded answers RunContext.Recorded (nil: nothing is recorded).
	recorded func(kind string) []resources.Object
	// recordedAt answers RunContext.RecordedAt (nil: nothing is recorded).
	recordedAt func(addr string) (resources.Object, bool)
	// checkpoint answers RunContext.Checkpoint (nil: a plan's, which
	// records nothing).
	checkpoint func(addr string, attrs resources.Attrs) error
	destroy    bool
	force      bool
}

// runContext is the one place a run's *resources.RunContext is made: the
// session's when there is one (so a plan and its apply meet each host over
// one connection), else a fresh pool that done closes. Every run-wide
// field is set here, so a run never sees what the previous run of its
// session left in them.
func (o options) runContext(s runSpec) (rc *resources.RunContext, done func()) {
	if o.session != nil {
		rc, done = o.session, func() {}
	} else {
		rc = resources.NewRunContext(o.Log, nil)
		done = func() { rc.Close() }
	}
	rc.Progress = o.Observer.Progress
	rc.Checkpoint = s.checkpoint
	if rc.Checkpoint == nil {
		rc.Checkpoint = func(string, resources.Attrs) error { return nil }
	}
	rc.Recorded = s.recorded
	if rc.Recorded == nil {
		rc.Recorded = func(string) []resources.Object { return nil }
	}
	rc.RecordedAt = s.recordedAt
	if rc.RecordedAt == nil {
		rc.RecordedAt = func(string) (resources.Object, bool) { return resources.Object{}, false }
	}
	rc.Destroy, rc.Force, rc.WorkDir = s.destroy, s.force, filepath.Dir(o.StatePath)
	if s.pins != nil {
		rc.PinHostKeys(s.pins)
	}
	return rc, done
}
