package hook

import (
	"regexp"
	"slices"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hookcheck"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// Operation is the operation a hook wraps. The engine derives it from
// the plan: a node created with its cluster is a deploy, one added to an
// existing cluster a join, one removed a delete, `eggo destroy` a cleanup,
// a version change an upgrade. It is EGGO_OPERATOR.
type Operation string

const (
	Deploy  Operation = "deploy"
	Join    Operation = "join"
	Delete  Operation = "delete"
	Cleanup Operation = "cleanup"
	Upgrade Operation = "upgrade"
)

// Operations lists every operation, in lifecycle order.
var Operations = []Operation{Deploy, Join, Delete, Cleanup, Upgrade}

// Timing says whether a hook runs before or after its operation.
type Timing string

const (
	Pre  Timing = "pre"
	Post Timing = "post"
)

// EnvType is EGGO_HOOK_TYPE: "prehook" or "posthook", as openEuler eggo
// names them.
func (t Timing) EnvType() string { return string(t) + "hook" }

// Event is one value of a hook's `on`: a timing and an operation.
type Event struct {
	Timing    Timing
	Operation Operation
}

// String is the event as written in HCL: "pre-join".
func (e Event) String() string { return string(e.Timing) + "-" + string(e.Operation) }

// ParseEvent reads "pre-join" and the like; ok is false for anything else.
func ParseEvent(s string) (e Event, ok bool) {
	for _, t := range []Timing{Pre, Post} {
		for _, op := range Operations {
			if e := (Event{t, op}); e.String() == s {
				return e, true
			}
		}
	}
	return Event{}, false
}

// Type is what a hook does: run scripts, or measure something.
type Type string

const (
	TypeShell      Type = "shell"
	TypeWeb        Type = "web"
	TypePrometheus Type = "prometheus"
)

// Scope says where a hook runs.
type Scope string

const (
	// NodeScope runs the hook once on each selected node the operation touches.
	NodeScope Scope = "node"
	// ClusterScope runs it once per operation, on the first master.
	ClusterScope Scope = "cluster"
)

// Hook is one hook block: what runs, on which events, where, and what a
// failure does. Defaults are filled in by the loader, except Policy, whose
// default depends on the operation (PolicyFor).
type Hook struct {
	Name   string
	Source string // "file.hcl:12" of the hook block
	// Ranges locate the hook block and its on, type, scope, roles, nodes,
	// source and files attributes, for errors shown with their source.
	// A saved plan does not carry them: it is applied as it was shown.
	Ranges resources.SourceRanges `json:"-"`
	On     []Event
	Type   Type
	Scope  Scope
	// Roles and Nodes select the nodes of a node-scope hook: a node runs it
	// when it has any of Roles or is named in Nodes. Both empty: every
	// node. Always empty for a cluster-scope hook.
	Roles []string
	Nodes []string // node names (Node.Name)
	// OnOperator runs a cluster-scope shell hook on the machine running
	// eggo (run_on = "operator") instead of the first master; its
	// EGGO_NODE_* variables still describe the first master.
	OnOperator bool

	// Timeout is, for a shell hook, the limit of each script (then
	// SIGTERM; default hookrun.DefaultTimeout) and, for a check hook, the
	// limit of the whole measurement run (0: none, hookcheck's semantics).
	Timeout time.Duration
	// Grace is how long after SIGTERM a shell script gets SIGKILL.
	Grace time.Duration

	// Policy is what a failure does; "" means the operation's default
	// (DefaultPolicy). Attempts, Backoff and Fallback are set only for
	// hookrun.Retry (defaults filled in).
	Policy   hookrun.Policy
	Attempts int
	Backoff  time.Duration
	Fallback hookrun.Policy

	Shell *Shell          // Type shell
	Check *hookcheck.Spec // Type web or prometheus; Check.Args values may hold ArgVars templates
}

// Shell is what a shell hook runs, read and checked at load time so
// that apply runs exactly what plan saw.
type Shell struct {
	Path    string             // absolute path of the source: a file, or a directory
	Scripts []hookrun.Script   // the file, or the directory's top-level files in lexical order
	Files   []hookrun.FileCopy // copied before the scripts; Src absolute
}

// DefaultPolicy is the failure policy of a hook that sets none: a
// failed hook stops what it prepares (deploy, join, upgrade), while tearing
// down goes on (delete, cleanup), as p2's "hooks cannot block" removal.
func DefaultPolicy(op Operation) hookrun.Policy {
	if op == Delete || op == Cleanup {
		return hookrun.Continue
	}
	return hookrun.Abort
}

// PolicyFor is the hook's policy for one operation.
func (h *Hook) PolicyFor(op Operation) hookrun.Policy {
	if h.Policy != "" {
		return h.Policy
	}
	return DefaultPolicy(op)
}

// RunsOn says whether the hook is declared for e.
func (h *Hook) RunsOn(e Event) bool { return slices.Contains(h.On, e) }

// Selects says whether a node-scope hook runs on n. A cluster-scope hook
// selects no node: it runs once, where the engine places it.
func (h *Hook) Selects(n *resources.Node) bool {
	if h.Scope == ClusterScope {
		return false
	}
	if len(h.Roles) == 0 && len(h.Nodes) == 0 {
		return true
	}
	if slices.Contains(h.Nodes, n.Name) {
		return true
	}
	for _, r := range h.Roles {
		if n.HasRole(r) {
			return true
		}
	}
	return false
}

// ShellSpec is the hookrun.Spec of a shell hook for one operation, without
// what depends on the run: Env, Args and TempDir are the caller's.
func (h *Hook) ShellSpec(op Operation) hookrun.Spec {
	s := hookrun.Spec{
		Hook:     h.Name,
		Timeout:  h.Timeout,
		Grace:    h.Grace,
		Policy:   h.PolicyFor(op),
		Attempts: h.Attempts,
		Backoff:  h.Backoff,
		Fallback: h.Fallback,
	}
	if h.Shell != nil {
		s.Scripts = h.Shell.Scripts
		s.Files = h.Shell.Files
	}
	return s
}

// ArgVars are the values a check hook's args may take from the run:
// `{{ node.ip }}` in an argument's value is the address of the node the
// hook runs for (the first master for a cluster-scope hook).
var ArgVars = []string{"node.name", "node.ip", "cluster.name", "cluster.api_endpoint"}

// ArgTemplate matches one `{{ NAME }}` in an argument's value; group 1
// is NAME. The loader refuses any NAME not in ArgVars.
var ArgTemplate = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// ExpandArgs fills the ArgVars templates of args with vals
// ("node.ip" → "10.0.0.1"); the result is what hookcheck.Render takes.
func ExpandArgs(args, vals map[string]string) map[string]string {
	out := make(map[string]string, len(args))
	for k, v := range args {
		out[k] = ArgTemplate.ReplaceAllStringFunc(v, func(m string) string {
			name := ArgTemplate.FindStringSubmatch(m)[1]
			if r, ok := vals[name]; ok {
				return r
			}
			return m
		})
	}
	return out
}
