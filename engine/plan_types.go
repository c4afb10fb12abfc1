package engine

import (
	"fmt"
	"sync"

	"github.com/eggo-project/eggo/resources"
)

// Plan is what a run will do. It is the execution graph itself: a saved
// plan is applied exactly as it was shown, never re-derived.
type Plan struct {
	// Lineage and Serial of the state the plan was made against ("" / 0
	// for no state); applying refuses if the state moved since.
	Lineage    string `json:"lineage"`
	Serial     uint64 `json:"serial"`
	ConfigHash string `json:"config_hash"`
	Destroy    bool   `json:"destroy"`
	// Force was given: deletes on unreachable hosts drop from state.
	Force bool `json:"force,omitempty"`
	// Steps in a stable order (by address); each carries its edges.
	Steps []*Step `json:"steps"`
	// Outputs evaluated from the configuration (sensitive ones redacted by views).
	Outputs []Output `json:"outputs,omitempty"`
	// Warnings that do not stop the plan (e.g. -target in use).
	Warnings []string `json:"warnings,omitempty"`
	// OutputsChanged is true when the outputs differ from those in state:
	// applying records them even if no resource changes.
	OutputsChanged bool `json:"outputs_changed,omitempty"`
	// Variables it was planned with (-var, -var-file), so applying the
	// saved plan loads the configuration the same way.
	VarArgs  []string `json:"var_args,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
	// Deploying is true while the cluster's first deploy is under way
	// (an empty state, or one whose deploy has not yet finished without
	// failures): nodes it creates are deployed, not joined, and applying
	// it keeps state.DeployPending until it succeeds.
	Deploying bool `json:"deploying,omitempty"`
	// Unreadable lists the state's sealed values that could not be
	// decrypted: the plan shows what it can; apply refuses.
	Unreadable []string `json:"unreadable,omitempty"`
	// UnreadableReasons says why each did not open: "no identity given",
	// or what was wrong with the identity or the value
	// (state.State.UnreadableReasons).
	UnreadableReasons map[string]string `json:"unreadable_reasons,omitempty"`
	// Uncompared are resources whose comparison needed those values:
	// planned as no-ops and listed, never guessed.
	Uncompared []string `json:"uncompared,omitempty"`
	// Secrets is how applying changes the encryption of the state's
	// secrets (nil: none).
	Secrets *SecretsChange `json:"secrets,omitempty"`
	// HostKeys are host keys applying pins into the state or forgets.
	HostKeys []HostKeyChange `json:"host_keys,omitempty"`

	index     map[string]*Step
	indexOnce sync.Once
}

// Step is one resource's planned change and where it sits in the graph.
type Step struct {
	resources.Change
	// Desired is what the configuration asked for (nil for a delete).
	Desired *resources.Desired `json:"desired,omitempty"`
	// Prior is the refreshed recorded object (nil for a create).
	Prior *resources.Object `json:"prior,omitempty"`
	// After is the edge list: addresses this step waits for.
	WaitsFor []string `json:"waits_for,omitempty"`
	// Sensitive attribute names (never rendered).
	Sensitive []string `json:"sensitive,omitempty"`
	// Hook is set on a hook step (Kind "hook"): what it runs, and where.
	Hook *HookStep `json:"hook,omitempty"`
}

// Output is one output value.
type Output struct {
	Name      string `json:"name"`
	Value     any    `json:"value"`
	Sensitive bool   `json:"sensitive,omitempty"`
}

// Counts tallies a plan the way its summary line does.
type Counts struct{ Add, Change, Destroy int }

// Counts returns "X to add, Y to change, Z to destroy" figures; a replace
// counts as one add and one destroy.
func (p *Plan) Counts() Counts {
	var c Counts
	for _, s := range p.Steps {
		c.tally(s.Action)
	}
	return c
}

// tally counts one action; a replace is one add and one destroy.
func (c *Counts) tally(a resources.Action) {
	switch a {
	case resources.Create:
		c.Add++
	case resources.Update:
		c.Change++
	case resources.Delete:
		c.Destroy++
	case resources.Replace:
		c.Add++
		c.Destroy++
	}
}

// HasChanges reports whether applying would do anything.
func (p *Plan) HasChanges() bool {
	if p.OutputsChanged || p.Secrets != nil || len(p.HostKeys) > 0 {
		return true
	}
	for _, s := range p.Steps {
		if s.Action != resources.NoOp {
			return true
		}
	}
	return false
}

// Step returns the step for an address.
func (p *Plan) Step(addr string) *Step {
	// Built once: apply looks steps up from parallel goroutines.
	p.indexOnce.Do(func() {
		p.index = make(map[string]*Step, len(p.Steps))
		for _, s := range p.Steps {
			p.index[s.Addr] = s
		}
	})
	return p.index[addr]
}

// Error is an engine failure that is not a configuration diagnostic.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }
