// Package state owns eggo's state file: its format, the versioned reader
// that upgrades older formats, the atomic writer with its backup, and the
// lock held by every command that writes.
package state

// FormatVersion is the format this eggo writes.
// Format 2 added recipients, host_keys, sealed values and
// sensitive_outputs; format 3 the shared table; format 4 the data key
// (website/state.md has the history).
const FormatVersion = 4

// State is the content of eggo.state.
type State struct {
	FormatVersion int    `json:"format_version"`
	Serial        uint64 `json:"serial"`
	Lineage       string `json:"lineage"`
	EggoVersion   string `json:"eggo_version"`
	// Recipients are the public keys (age1…, ssh-…) the sealed values are
	// encrypted to, sorted. Empty when the state holds no sealed value.
	Recipients []string `json:"recipients,omitempty"`
	// DataKey is the key the sealed values are encrypted under, itself
	// encrypted to the recipients (base64 of an age file; datakey.go).
	// Empty when no value is sealed under one.
	DataKey string `json:"data_key,omitempty"`
	// HostKeys pins each node's SSH host key ("ssh-ed25519 AAAA…") as
	// first seen; every later connection must present the same key.
	HostKeys map[string]string `json:"host_keys,omitempty"`
	// Shared is the file's table of values many resources hold alike
	// (see shared.go). It exists only in the file: a decoded state has
	// every reference resolved and Shared nil.
	Shared map[string]any `json:"shared,omitempty"`
	// Resources sorted by Address.
	Resources []Resource `json:"resources"`
	// Outputs of the last apply, by name.
	Outputs map[string]any `json:"outputs,omitempty"`
	// SensitiveOutputs names the outputs that are secret (sorted); sealed
	// like sensitive attributes.
	SensitiveOutputs []string `json:"sensitive_outputs,omitempty"`
	// SealedOutputs are sensitive outputs still encrypted: in the file,
	// all of them (when recipients are named); in memory, those no
	// identity could open.
	SealedOutputs map[string]string `json:"sealed_outputs,omitempty"`
	// HookRuns are the latest runs of hooks, oldest first (MaxHookRuns).
	HookRuns []HookRun `json:"hook_runs,omitempty"`
	// DeployPending is set while the cluster's first deploy has not
	// finished without failures: a node created when the apply is run
	// again is still deployed with its cluster, not joined to it.
	DeployPending bool `json:"deploy_pending,omitempty"`

	// plainOnRead counts the sensitive values the file held in plain text.
	plainOnRead int
	// unopened says why each value still sealed did not open
	// ("ADDRESS.ATTR", "output.NAME" → reason); absent: no identity given.
	unopened map[string]string
	// keyDistrust is why the next write will not seal under the file's
	// data key ("" when it will, or when it cannot tell).
	keyDistrust string
}

// Resource is one recorded resource.
type Resource struct {
	Address string `json:"address"`
	Kind    string `json:"kind"`
	Node    string `json:"node,omitempty"`
	// Status is "" when the last operation on it finished, "pending" when an
	// apply started changing it and did not record the end.
	Status string `json:"status,omitempty"`
	// Attributes are JSON values only.
	Attributes map[string]any `json:"attributes"`
	// Sensitive lists attribute names whose values are secret (sorted).
	Sensitive []string `json:"sensitive,omitempty"`
	// Sealed holds sensitive attributes encrypted under the state's data
	// key (or, written before format 4, each an age file), by name. In the file every
	// sensitive attribute is here and not in Attributes (when recipients
	// are named); in memory only those no identity could open remain.
	Sealed map[string]string `json:"sealed,omitempty"`
	// Dependencies are the direct dependencies' addresses (sorted).
	Dependencies []string `json:"dependencies,omitempty"`
}

// StatusPending marks a resource an apply was changing when it stopped.
const StatusPending = "pending"

// New returns an empty state of the current format with a fresh lineage:
// what a first apply starts from when no state file exists yet.
func New() *State {
	return &State{
		FormatVersion: FormatVersion,
		Lineage:       NewLineage(),
		Resources:     []Resource{},
	}
}

// BumpSerial raises Serial by one, for a changed state about to be
// written: a plan made from the state it replaces then no longer applies.
func (s *State) BumpSerial() { s.Serial++ }
