package hookcheck

import "time"

// Phase is the state of a measurement or of a whole hook, spelled as in Argo
// Rollouts and bcs-hook-operator.
type Phase string

const (
	PhaseRunning      Phase = "Running"
	PhaseSuccessful   Phase = "Successful"
	PhaseFailed       Phase = "Failed"
	PhaseError        Phase = "Error"
	PhaseInconclusive Phase = "Inconclusive"
)

// Measurement is one call of the provider and its judgement.
type Measurement struct {
	Start, Finish time.Time
	// Value is what the provider returned (strings as they are, other
	// values as JSON); empty when the measurement erred before a value.
	Value   string
	Phase   Phase
	Message string
}

// Result is the outcome of Run.
type Result struct {
	Phase   Phase
	Message string
	// Measurements holds the most recent ones only (Options.KeepMeasurements).
	Measurements []Measurement

	// Counters over the whole run, as in an Argo MetricResult. Count is the
	// completed (non-error) measurements.
	Count, Successful, Failed, Inconclusive, Errors, ConsecutiveErrors int
	Started, Finished                                                  time.Time
}
