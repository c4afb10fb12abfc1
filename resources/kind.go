// Package resources is the contract between the engine and eggo's resource
// kinds, and what every kind shares. The engine knows kinds only through
// Kind; a kind knows nothing of the graph, the state file or the command
// line.
//
// Here: the contract (Kind, Desired, Object, Change, Reason and its codes,
// Schema, Attrs and Ref), the Cluster model and its topology (roles,
// endpoints, the cluster DNS address, a node's arch), RunContext (one
// connection per host per run, Connect, host-key pins, memos), the shared
// names (addresses, components, certificates, CAs), the bundle layout, and
// running a script on a host. Nothing here imports a family.
//
// The kinds live in family packages that import this one and never each
// other: host (a machine prepared and its package bundle), certs (pki,
// cert, kubeconfig over the pki library), kube (systemd services, etcd
// members, Nodes, the pod network), addon (Kubernetes objects applied
// through a master; the one declared exception, it builds on kube), and
// hook (the hook model and how a shell hook reaches its host). kinds lists
// them for the engine. The rules are checked by TestImportBoundaries
// (make check).
package resources

import (
	"context"
)

// Attrs are a resource's attributes: JSON-compatible values only (string,
// bool, float64, []any, map[string]any, nil) so they round-trip through the
// state file unchanged. Use Normalize on anything built from Go types.
// A value of type Unknown marks an attribute known only after apply.
type Attrs map[string]any

// Unknown is the value of an attribute that is known only after apply.
type Unknown struct{}

// Action is what a plan does to one resource.
type Action string

const (
	NoOp    Action = "no-op"
	Create  Action = "create"
	Update  Action = "update"
	Replace Action = "replace" // delete then create
	Delete  Action = "delete"
)

// Reason says why a change is planned. Code is stable (for -json and tests);
// Detail is for people.
type Reason struct {
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
}

// Reason codes.
const (
	ReasonNew              = "new"                 // not in state yet
	ReasonConfig           = "changed-in-config"   // desired attributes differ from state
	ReasonDrift            = "changed-outside"     // refresh found the live object differs from state
	ReasonReplaceRequested = "replace-requested"   // -replace=ADDR
	ReasonRemoved          = "removed-from-config" // in state, not in config
	ReasonDestroy          = "destroy"             // eggo destroy
	ReasonPending          = "interrupted"         // a previous apply stopped while changing it
	ReasonGone             = "gone"                // refresh found the live object missing
	ReasonExpiring         = "expiring"            // a certificate is within renew_before of expiry
	ReasonUpgrade          = "upgrade"             // kubernetes_version changed
	ReasonRestart          = "restart"             // an update restarts a running service
	ReasonJoin             = "join"                // a new etcd member joins the running cluster
	ReasonHook             = "hook"                // a hook step of the operation it wraps
	ReasonInterrupts       = "interrupts"          // the change interrupts something running (Detail says what)
)

// DeleteExplainer is implemented by kinds whose removal of some object
// does more than "removed from the configuration" says, such as cutting
// traffic for a while: the plan shows these reasons with the delete.
type DeleteExplainer interface {
	ExplainDelete(prior Object) []Reason
}

// PlanChecker is implemented by kinds that judge a whole plan, not one
// resource: an etcd member set that would lose quorum in one step, a
// kubelet bound for a host it will not run well on. The engine calls it
// once the plan is made; an error refuses the plan, warnings are shown
// with it.
type PlanChecker interface {
	CheckPlan(r PlanReview) (warnings []string, err error)
}

// PlanReview is what a PlanChecker judges.
type PlanReview struct {
	Changes  []Change // the plan's changes of the checker's kind
	Recorded []Object // the state's objects of its kind, refreshed when the plan was, by address
	Destroy  bool
	// Record is any kind's object in the state by address (a host's
	// facts, for one): the refreshed one when the plan refreshed.
	Record func(addr string) (Object, bool)
	// Ctx and Run reach the live cluster for a checker that must ask it
	// something no record holds (which removed APIs clients still ask
	// for); nil when the plan did not refresh (-refresh=false) or
	// destroys. A checker only reads.
	Ctx context.Context
	Run *RunContext
}

// Recaller is implemented by kinds whose expansion keeps what earlier
// applies chose, such as the pod subnet each worker was given: the engine
// calls Recall with the prior state's objects before any kind expands, so
// a plan (refreshed or not) keeps those choices — or, as the Kubernetes
// version the cluster runs, is judged against them. A destroy's plan, which
// wants nothing, does not recall.
type Recaller interface {
	Recall(c *Cluster, recorded func(kind string) []Object)
}

// Desired is one resource as the configuration wants it.
type Desired struct {
	Addr      string      // e.g. host.master-0
	Kind      string      // e.g. host
	Node      string      // the node it lives on, for messages; "" for cluster-wide resources
	Source    string      // "file.hcl:12" of the block that declared it, for messages
	Range     SourceRange // that block (or list element), for errors shown with its source
	Attrs     Attrs       // desired attributes (may contain Unknown)
	DependsOn []string    // addresses of resources that must be applied first
	// Roll puts the resource in a rolling group: when an apply updates or
	// replaces several resources of one group that already exist, the
	// engine runs them a batch at a time (see Roll). Nil: no rolling.
	Roll *Roll
}

// Roll orders the updates of existing resources (an upgrade) so that only
// Batch units are down at a time. Resources of one group with the same Unit
// (one node's components) form one unit; units go in order of Order, then
// Unit, Batch units at a time, each batch waiting for the whole previous
// one. Groups chain in Stage order: every update of a group of a later
// stage waits for every update of earlier stages.
type Roll struct {
	Group string `json:"group"` // "etcd", "control-plane", "workers"
	Stage int    `json:"stage"` // groups roll in ascending stage order
	Unit  string `json:"unit"`  // usually the node name
	Batch int    `json:"batch"` // units at a time; <1 means 1
}

// Object is one resource as recorded (the engine converts to and from state).
type Object struct {
	Addr      string
	Kind      string
	Node      string
	Attrs     Attrs
	DependsOn []string
	// Pending is true when an apply started changing this object and did not
	// record its end (crash, kill -9). The next plan must re-read it.
	Pending bool
}

// Change is the planned change of one resource.
type Change struct {
	Addr    string   `json:"address"`
	Kind    string   `json:"kind"`
	Node    string   `json:"node,omitempty"`
	Action  Action   `json:"action"`
	Before  Attrs    `json:"before,omitempty"`
	After   Attrs    `json:"after,omitempty"`
	Reasons []Reason `json:"reasons,omitempty"`
	// Changed lists the top-level attribute names that differ (sorted).
	Changed []string `json:"changed,omitempty"`
	// Rolling asks for a create to take part in its Desired's rolling
	// group like an update would: an etcd member joining a running cluster
	// must not join at the same time as another.
	Rolling bool `json:"rolling,omitempty"`
}

// AttrSchema describes one attribute.
type AttrSchema struct {
	Description string
	Sensitive   bool // never printed in plans, logs or errors; marked in state
	Computed    bool // set by the kind (facts), never from config; refreshed silently
	ForceNew    bool // a change replaces the resource instead of updating it
}

// Schema describes a kind's attributes.
type Schema struct {
	Attributes map[string]AttrSchema
}

// Kind is one resource kind. Every method must be idempotent against the
// live system: re-running a half-done Create converges.
type Kind interface {
	// Name is the kind's name, the first part of its addresses ("host").
	Name() string
	Schema() Schema
	// Expand turns the cluster model into this kind's desired resources.
	Expand(c *Cluster) ([]Desired, error)
	// Read refreshes a recorded object from the live system. It returns the
	// live attributes (nil if the object no longer exists) and reasons for
	// any drift it found. It must not write anything.
	Read(ctx context.Context, rc *RunContext, prior Object) (live Attrs, drift []Reason, err error)
	// Plan decides the change from prior (nil if none) to desired.
	Plan(ctx context.Context, rc *RunContext, prior *Object, desired Desired) (Change, error)
	// Create makes the resource. On error it returns whatever it did create
	// so far (or nil), which the engine records: nothing done is lost.
	Create(ctx context.Context, rc *RunContext, desired Desired, planned Change) (Attrs, error)
	// Update changes the resource in place; like Create on error.
	Update(ctx context.Context, rc *RunContext, prior Object, desired Desired, planned Change) (Attrs, error)
	// Delete removes exactly what the object records and nothing else. On
	// error it returns the attributes of what is still left (or nil).
	Delete(ctx context.Context, rc *RunContext, prior Object) (Attrs, error)
}
