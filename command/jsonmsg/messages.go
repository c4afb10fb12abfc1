package jsonmsg

// The "type" of each line plan, apply, destroy and validate print with
// -json, and so which message the line is.
const (
	TypeDiagnostic        = "diagnostic"
	TypeWarning           = "warning"
	TypePlannedChange     = "planned_change"
	TypePlannedHook       = "planned_hook"
	TypeUnreadableSecrets = "unreadable_secrets"
	TypeSecretsChange     = "secrets_change"
	TypeHostKeyChange     = "host_key_change"
	TypeChangeSummary     = "change_summary"
	TypeRefreshStart      = "refresh_start"
	TypeApplyStart        = "apply_start"
	TypeApplyProgress     = "apply_progress"
	TypeApplyComplete     = "apply_complete"
	TypeApplyErrored      = "apply_errored"
	TypeApplySummary      = "apply_summary"
	TypeValid             = "valid"
)

// Line is the key every line of plan, apply, destroy and validate -json
// has: decode a line into it first to learn which message it is, then
// into that message. eggo never prints a Line by itself.
type Line struct {
	Type string `json:"type"`
}

// Diagnostic is an error or a warning, printed by plan, apply, destroy and
// validate: a configuration's errors and warnings, errors found while
// expanding it into resources, an error that ends the command, a hook
// whose policy continued after it failed, and each resource that failed
// (after apply_summary).
type Diagnostic struct {
	// Detail starts with the source range, when there is one.
	Detail string `json:"detail"`
	// Range is where in the configuration it points, as Terraform's JSON
	// diagnostics say it; nil (null) for one that points nowhere, such as
	// a failed connection.
	Range    *Range `json:"range"`
	Severity string `json:"severity"` // "error" or "warning"
	Summary  string `json:"summary"`
	Type     string `json:"type"` // "diagnostic"
}

// Range is a span of a configuration file, a Diagnostic's range.
type Range struct {
	End      Pos    `json:"end"`
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
}

// Pos counts as HCL does: line and column from 1, byte from 0.
type Pos struct {
	Byte   int `json:"byte"`
	Column int `json:"column"`
	Line   int `json:"line"`
}

// Warning is a plan warning (such as -target in use), printed by plan
// (and by apply and destroy as they plan) before the planned changes.
type Warning struct {
	Message string `json:"message"`
	Type    string `json:"type"` // "warning"
}

// PlannedChange is one resource the plan changes, printed by plan (and by
// apply and destroy as they plan) for every step that is not a no-op or a
// hook.
type PlannedChange struct {
	// Action is "create", "update", "replace" (delete then create) or
	// "delete".
	Action  string `json:"action"`
	Address string `json:"address"`
	// After and Before are the resource's attributes as planned and as
	// recorded (null for a create, or a delete's After); a sensitive value
	// is SensitiveValue, one known only after apply UnknownValue.
	After  map[string]any `json:"after"`
	Before map[string]any `json:"before"`
	// Changed names the attributes that differ.
	Changed []string `json:"changed"`
	Kind    string   `json:"kind"`
	Node    string   `json:"node"` // "" for a resource of the whole cluster
	// Reasons say why the change is planned.
	Reasons []Reason `json:"reasons"`
	Type    string   `json:"type"` // "planned_change"
}

// Reason says why a change is planned (resources.Reason). Code is stable
// ("new", "changed-in-config", "changed-outside", "removed-from-config",
// … as resources' Reason codes list them); Detail is for people, and left
// out when empty.
type Reason struct {
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
}

// PlannedHook is one hook the plan runs, and around what, printed by plan
// (and by apply and destroy as they plan) for every hook step.
type PlannedHook struct {
	Address string `json:"address"`
	// Covers are the addresses of the changes the hook wraps.
	Covers []string `json:"covers"`
	// Event is the hook's event as written in HCL: "pre-join".
	Event string `json:"event"`
	// Hook is the hook block's name.
	Hook string `json:"hook"`
	// HookType is what the hook does: "shell", "web" or "prometheus".
	HookType string `json:"hook_type"`
	Node     string `json:"node"` // "" for a cluster-scope hook
	// OnFailure is what its failure does to the operation: "abort",
	// "continue" or "retry".
	OnFailure string `json:"on_failure"`
	// Operator is the operation it wraps: "deploy", "join", "delete",
	// "cleanup" or "upgrade".
	Operator string `json:"operator"`
	// Scope is "node" or "cluster".
	Scope string `json:"scope"`
	Type  string `json:"type"` // "planned_hook"
	// WaitsFor are the addresses of the steps it runs after.
	WaitsFor []string `json:"waits_for"`
}

// UnreadableSecrets lists the state's sealed values that could not be
// decrypted, printed by plan (and by apply and destroy as they plan) when
// there are some: the plan shows what it can, apply refuses.
type UnreadableSecrets struct {
	// NotCompared are the resources whose comparison needed those values:
	// planned as no-ops, never guessed.
	NotCompared []string `json:"not_compared"`
	// Reasons says why each value did not open: "no identity given",
	// "wrong identity: …", "no matching recipient: …", "corrupt envelope:
	// …", "corrupt value: …" or "MAC failure: …".
	Reasons map[string]string `json:"reasons"`
	Type    string            `json:"type"` // "unreadable_secrets"
	Values  []string          `json:"values"`
}

// SecretsChange is how applying changes the encryption of the state's
// secrets, printed by plan (and by apply and destroy as they plan) when
// it does.
type SecretsChange struct {
	Added   []string `json:"added"`   // recipients added
	Encrypt int      `json:"encrypt"` // plain secret values to seal
	// Recipients are the state's recipients after the apply.
	Recipients []string `json:"recipients"`
	Removed    []string `json:"removed"` // recipients removed
	Type       string   `json:"type"`    // "secrets_change"
}

// HostKeyChange is a node's SSH host key applying pins into the state or
// forgets, printed by plan (and by apply and destroy as they plan), one
// per key.
type HostKeyChange struct {
	Action      string `json:"action"` // "pin" or "forget"
	Fingerprint string `json:"fingerprint"`
	Node        string `json:"node"`
	Type        string `json:"type"` // "host_key_change"
}

// ChangeSummary ends a plan, printed by plan (and by apply and destroy as
// they plan) after its changes: how many resources it adds, changes and
// destroys.
type ChangeSummary struct {
	Add    int `json:"add"`
	Change int `json:"change"`
	// Changes is whether applying would do anything, the state's own
	// changes (outputs, secrets, host keys) included.
	Changes bool   `json:"changes"`
	Destroy int    `json:"destroy"`
	Type    string `json:"type"` // "change_summary"
}

// A run's progress and end: printed while planning (refreshes) and while
// applying or destroying.

// RefreshStart is printed by plan (and by apply and destroy as they plan)
// when refresh reads a resource from its host.
type RefreshStart struct {
	Address string `json:"address"`
	Type    string `json:"type"` // "refresh_start"
}

// ApplyStart is printed by apply and destroy when a change starts.
type ApplyStart struct {
	Action  string `json:"action"` // as PlannedChange's
	Address string `json:"address"`
	Node    string `json:"node"`
	Type    string `json:"type"` // "apply_start"
}

// ApplyProgress is printed by apply and destroy for a step inside a
// running change (such as "copying kubelet (SIZE)").
type ApplyProgress struct {
	Address string `json:"address"`
	Message string `json:"message"`
	Type    string `json:"type"` // "apply_progress"
}

// ApplyComplete is printed by apply and destroy when a change finished.
type ApplyComplete struct {
	Action         string  `json:"action"` // as PlannedChange's
	Address        string  `json:"address"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Type           string  `json:"type"` // "apply_complete"
}

// ApplyErrored is printed by apply and destroy when a change failed. A
// message of its own rather than an optional field, so an empty error
// text still has its "error" key.
type ApplyErrored struct {
	Action         string  `json:"action"` // as PlannedChange's
	Address        string  `json:"address"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Error          string  `json:"error"`
	Type           string  `json:"type"` // "apply_errored"
}

// ApplySummary ends an apply or a destroy: what it did, what it could not
// do and what it cost. A Diagnostic follows for each failed resource.
type ApplySummary struct {
	Add            int     `json:"add"`
	BytesUploaded  int64   `json:"bytes_uploaded"`
	Change         int     `json:"change"`
	Connections    int64   `json:"connections"` // connections opened to hosts
	Destroy        int     `json:"destroy"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Failed         int     `json:"failed"`
	// NotStarted counts the changes never started (the run stopped
	// first); Skipped those left out because one they wait for failed.
	NotStarted   int    `json:"not_started"`
	Operation    string `json:"operation"` // "apply" or "destroy"
	RemoteWrites int64  `json:"remote_writes"`
	Skipped      int    `json:"skipped"`
	Type         string `json:"type"` // "apply_summary"
}

// Valid is printed by validate when it found the configuration valid.
type Valid struct {
	// Nodes counts the configuration's nodes (only the known ones when
	// some variables are unset).
	Nodes int    `json:"nodes"`
	Type  string `json:"type"` // "valid"
	// UnsetVariables: the variables without a value, taken as unknown
	// (never null: [] when none); what depends on them was not checked.
	UnsetVariables []string `json:"unset_variables"`
}
