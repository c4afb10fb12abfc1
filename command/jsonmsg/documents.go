package jsonmsg

// The documents of show, state show and graph are one indented JSON
// object each, not lines. show's and state show's are declared like the
// messages (they were maps too); graph's always were structs.

// State is what `eggo show -json` prints when the state has resources
// (otherwise show prints a sentence saying it is empty, not JSON): the
// state, sensitive values hidden.
type State struct {
	EggoVersion   string `json:"eggo_version"` // the eggo that wrote it
	FormatVersion int    `json:"format_version"`
	Lineage       string `json:"lineage"`
	// Outputs are the configuration's outputs as last applied; a
	// sensitive one is SensitiveValue.
	Outputs   map[string]any `json:"outputs"`
	Resources []Resource     `json:"resources"`
	Serial    uint64         `json:"serial"`
}

// Resource is one resource of the state: what `eggo state show -json
// ADDRESS` prints, and each of State's resources.
type Resource struct {
	Address string `json:"address"`
	// Attributes are what the state records of it; a sensitive value is
	// SensitiveValue.
	Attributes map[string]any `json:"attributes"`
	// Dependencies are the addresses of the resources it depends on.
	Dependencies []string `json:"dependencies"`
	Kind         string   `json:"kind"`
	Node         string   `json:"node"` // "" for a resource of the whole cluster
	// Status is "" when the last operation on it finished, "pending" when
	// an apply was changing it when it stopped.
	Status string `json:"status"`
}

// Graph is what `eggo graph -json` prints: the plan's steps and the edges
// between them, each running from a dependency to what waits for it.
// Never null: empty lists are [].
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphNode is one step of the plan; Action is PlannedChange's, or
// "no-op".
type GraphNode struct {
	Address string `json:"address"`
	Action  string `json:"action"`
}

// GraphEdge says the step To waits for the step From.
type GraphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}
