package command

import (
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// The -json output is a contract with the programs that read it: every
// message is declared here. Each line of plan, apply, destroy and validate
// is one message with a "type".
//
// Fields are declared in the alphabetical order of their JSON names and
// none is omitted when empty: these messages were maps before, which
// encoding/json writes with sorted keys and every key present, and the
// bytes must not change. TestJSONMessageKeysSorted checks the order.

// diagnosticMsg is an error or warning (severity "error" or "warning").
// Range is where in the configuration it points, as Terraform's JSON
// diagnostics say it (null for one that points nowhere, such as a failed
// connection).
type diagnosticMsg struct {
	Detail   string           `json:"detail"`
	Range    *diagnosticRange `json:"range"`
	Severity string           `json:"severity"`
	Summary  string           `json:"summary"`
	Type     string           `json:"type"` // "diagnostic"
}

// diagnosticRange is a span of a configuration file.
type diagnosticRange struct {
	End      diagnosticPos `json:"end"`
	Filename string        `json:"filename"`
	Start    diagnosticPos `json:"start"`
}

// diagnosticPos counts as HCL does: line and column from 1, byte from 0.
type diagnosticPos struct {
	Byte   int `json:"byte"`
	Column int `json:"column"`
	Line   int `json:"line"`
}

// warningMsg is a plan warning (such as -target in use).
type warningMsg struct {
	Message string `json:"message"`
	Type    string `json:"type"` // "warning"
}

// plannedChangeMsg is one resource the plan changes; sensitive values are
// replaced by "(sensitive value)".
type plannedChangeMsg struct {
	Action  resources.Action   `json:"action"`
	Address string             `json:"address"`
	After   map[string]any     `json:"after"`
	Before  map[string]any     `json:"before"`
	Changed []string           `json:"changed"`
	Kind    string             `json:"kind"`
	Node    string             `json:"node"`
	Reasons []resources.Reason `json:"reasons"`
	Type    string             `json:"type"` // "planned_change"
}

// plannedHookMsg is one hook the plan runs, and around what.
type plannedHookMsg struct {
	Address   string         `json:"address"`
	Covers    []string       `json:"covers"`
	Event     string         `json:"event"`
	Hook      string         `json:"hook"`
	HookType  hook.Type      `json:"hook_type"`
	Node      string         `json:"node"`
	OnFailure hookrun.Policy `json:"on_failure"`
	Operator  hook.Operation `json:"operator"`
	Scope     hook.Scope     `json:"scope"`
	Type      string         `json:"type"` // "planned_hook"
	WaitsFor  []string       `json:"waits_for"`
}

// unreadableSecretsMsg lists the state's values no identity given opens.
type unreadableSecretsMsg struct {
	NotCompared []string `json:"not_compared"`
	Type        string   `json:"type"` // "unreadable_secrets"
	Values      []string `json:"values"`
}

// secretsChangeMsg is how applying changes the state's encryption.
type secretsChangeMsg struct {
	Added      []string `json:"added"`
	Encrypt    int      `json:"encrypt"`
	Recipients []string `json:"recipients"`
	Removed    []string `json:"removed"`
	Type       string   `json:"type"` // "secrets_change"
}

// hostKeyChangeMsg is a host key applying pins or forgets.
type hostKeyChangeMsg struct {
	Action      string `json:"action"`
	Fingerprint string `json:"fingerprint"`
	Node        string `json:"node"`
	Type        string `json:"type"` // "host_key_change"
}

// changeSummaryMsg ends a plan.
type changeSummaryMsg struct {
	Add     int    `json:"add"`
	Change  int    `json:"change"`
	Changes bool   `json:"changes"`
	Destroy int    `json:"destroy"`
	Type    string `json:"type"` // "change_summary"
}

// A run's progress and end.

// refreshStartMsg: a resource is being read from its host.
type refreshStartMsg struct {
	Address string `json:"address"`
	Type    string `json:"type"` // "refresh_start"
}

// applyStartMsg: a change starts.
type applyStartMsg struct {
	Action  resources.Action `json:"action"`
	Address string           `json:"address"`
	Node    string           `json:"node"`
	Type    string           `json:"type"` // "apply_start"
}

// applyProgressMsg: a step inside a running change.
type applyProgressMsg struct {
	Address string `json:"address"`
	Message string `json:"message"`
	Type    string `json:"type"` // "apply_progress"
}

// applyCompleteMsg: a change finished.
type applyCompleteMsg struct {
	Action         resources.Action `json:"action"`
	Address        string           `json:"address"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
	Type           string           `json:"type"` // "apply_complete"
}

// applyErroredMsg: a change failed. A message of its own rather than an
// optional field, so an empty error text still has its "error" key.
type applyErroredMsg struct {
	Action         resources.Action `json:"action"`
	Address        string           `json:"address"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
	Error          string           `json:"error"`
	Type           string           `json:"type"` // "apply_errored"
}

// applySummaryMsg ends an apply or destroy (operation).
type applySummaryMsg struct {
	Add            int     `json:"add"`
	BytesUploaded  int64   `json:"bytes_uploaded"`
	Change         int     `json:"change"`
	Connections    int64   `json:"connections"`
	Destroy        int     `json:"destroy"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Failed         int     `json:"failed"`
	NotStarted     int     `json:"not_started"`
	Operation      string  `json:"operation"`
	RemoteWrites   int64   `json:"remote_writes"`
	Skipped        int     `json:"skipped"`
	Type           string  `json:"type"` // "apply_summary"
}

// validMsg: validate found the configuration valid.
type validMsg struct {
	Nodes int    `json:"nodes"`
	Type  string `json:"type"` // "valid"
	// UnsetVariables: the variables without a value, taken as unknown
	// (never null); what depends on them was not checked, and nodes
	// counts only the known nodes.
	UnsetVariables []string `json:"unset_variables"`
}

// The documents of show, state show and graph are one indented JSON
// object each, not lines. show's and state show's are declared like the
// messages above (they were maps too); graph's always were structs.

// stateDoc is `eggo show -json`: the state, sensitive values hidden.
type stateDoc struct {
	EggoVersion   string         `json:"eggo_version"`
	FormatVersion int            `json:"format_version"`
	Lineage       string         `json:"lineage"`
	Outputs       map[string]any `json:"outputs"`
	Resources     []resourceDoc  `json:"resources"`
	Serial        uint64         `json:"serial"`
}

// resourceDoc is one resource of the state (`eggo state show -json`).
type resourceDoc struct {
	Address      string         `json:"address"`
	Attributes   map[string]any `json:"attributes"`
	Dependencies []string       `json:"dependencies"`
	Kind         string         `json:"kind"`
	Node         string         `json:"node"`
	Status       string         `json:"status"`
}

// graphDoc is `eggo graph -json`; an edge runs from a dependency to what
// waits for it. Never null: empty lists are [].
type graphDoc struct {
	Nodes []graphNode `json:"nodes"`
	Edges []graphEdge `json:"edges"`
}

type graphNode struct {
	Address string `json:"address"`
	Action  string `json:"action"`
}

type graphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}
