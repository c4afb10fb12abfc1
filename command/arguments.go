package command

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// hookFlag collects one kind of hook flag into the shared, ordered list, so
// the hooks are named in the order given.
type hookFlag struct {
	name string
	list *[]config.HookFlag
}

func (h hookFlag) String() string { return "" }
func (h hookFlag) Set(v string) error {
	*h.list = append(*h.list, config.HookFlag{Name: h.name, Value: v})
	return nil
}

// Operation holds the flags shared by plan, apply and destroy.
type Operation struct {
	StatePath        string
	Vars             multiFlag
	VarFiles         multiFlag
	Targets          multiFlag
	Replace          multiFlag
	Refresh          bool
	Parallelism      int
	JSON             bool
	Out              string // plan -out
	DetailedExitcode bool   // plan
	AutoApprove      bool   // apply, destroy
	PlanFile         string // apply FILE
	Destroy          bool   // plan -destroy
	Force            bool   // -force: drop unreachable hosts' resources being deleted
	// Identities are -identity files (with EGGO_IDENTITY's) that open the
	// state's sealed secrets.
	Identities multiFlag
	// ConfineFiles: -confine-files (config.VarInput.ConfineFiles).
	ConfineFiles bool
	// StateSet: -state was given.
	StateSet bool
	// Hooks are --prehook, --posthook, --cluster-prehook and
	// --cluster-posthook in the order given (plan, apply, destroy).
	Hooks []config.HookFlag
}

// parseOperation parses the flags of plan (cmd "plan"), apply or destroy.
// It is pure: it returns the arguments or an error, and prints nothing.
func parseOperation(cmd string, args []string) (*Operation, error) {
	op := &Operation{}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	op.StatePath, op.Refresh, op.Parallelism = "eggo.state", true, engine.DefaultParallelism
	fs.Var(&op.Vars, "var", "")
	fs.Var(&op.VarFiles, "var-file", "")
	fs.BoolVar(&op.JSON, "json", false, "")
	fs.BoolVar(&op.ConfineFiles, "confine-files", false, "")
	if cmd != "validate" {
		fs.StringVar(&op.StatePath, "state", "eggo.state", "")
		fs.Var(&op.Targets, "target", "")
		fs.Var(&op.Replace, "replace", "")
		fs.BoolVar(&op.Refresh, "refresh", true, "")
		fs.IntVar(&op.Parallelism, "parallelism", engine.DefaultParallelism, "")
		fs.BoolVar(&op.Force, "force", false, "")
		fs.Var(&op.Identities, "identity", "")
	}
	switch cmd {
	case "plan", "graph":
		fs.BoolVar(&op.Destroy, "destroy", false, "")
	}
	switch cmd {
	case "plan", "apply", "destroy":
		for _, name := range config.HookFlagNames {
			fs.Var(hookFlag{name: name, list: &op.Hooks}, name, "")
		}
	}
	switch cmd {
	case "plan":
		fs.StringVar(&op.Out, "out", "", "")
		fs.BoolVar(&op.DetailedExitcode, "detailed-exitcode", false, "")
	case "apply", "destroy":
		fs.BoolVar(&op.AutoApprove, "auto-approve", false, "")
	}
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return op, fmt.Errorf("%s: %v", cmd, err)
	}
	switch {
	case cmd == "apply" && len(rest) == 1:
		op.PlanFile = rest[0]
		if len(op.Vars)+len(op.VarFiles)+len(op.Targets)+len(op.Replace) > 0 || !op.Refresh {
			return op, fmt.Errorf("apply %s: a saved plan is applied exactly as planned; -var, -var-file, -target, -replace and -refresh belong to `eggo plan`", rest[0])
		}
		if len(op.Hooks) > 0 {
			return op, fmt.Errorf("apply %s: a saved plan runs exactly the hooks it shows; %s belongs to `eggo plan` (eggo plan %s -out=FILE)", rest[0], op.Hooks[0], op.Hooks[0])
		}
	case len(rest) > 0:
		extra := rest[0]
		if cmd == "apply" {
			extra = rest[1] // the first is the plan file
		}
		return op, fmt.Errorf("%s: unexpected argument %q (see eggo %s -help)", cmd, extra, cmd)
	}
	fs.Visit(func(f *flag.Flag) { op.StateSet = op.StateSet || f.Name == "state" })
	if op.Parallelism < 1 {
		return op, fmt.Errorf("%s: -parallelism must be at least 1, got %d", cmd, op.Parallelism)
	}
	if cmd == "destroy" {
		op.Destroy = true
	}
	return op, nil
}

// parseInterleaved parses flags that may also follow the arguments
// (`apply PLANFILE --prehook=x`), so such a flag is judged by what it is
// rather than reported as a stray argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil // after "--" nothing is a flag
		}
		args = left
		for len(args) > 0 && (args[0] == "-" || !strings.HasPrefix(args[0], "-")) {
			rest, args = append(rest, args[0]), args[1:]
		}
		if len(args) == 0 {
			return rest, nil
		}
	}
}

// request is the workspace the flags name (the command sets its Log).
func (op *Operation) request(env []string) engine.Request {
	return engine.Request{
		Dir:          ".",
		Vars:         config.VarInput{Vars: op.Vars, VarFiles: op.VarFiles, Env: env, ConfineFiles: op.ConfineFiles},
		StatePath:    op.StatePath,
		StatePathSet: op.StateSet,
		Identities:   identityFiles(op.Identities, env),
		CommandHooks: op.Hooks,
		Destroy:      op.Destroy,
		Kinds:        testKinds,
	}
}

// planOptions are the plan's flags.
func (op *Operation) planOptions() engine.PlanOptions {
	return engine.PlanOptions{Parallelism: op.Parallelism, Targets: op.Targets, Replace: op.Replace,
		NoRefresh: !op.Refresh, Force: op.Force}
}

// applyOptions are the apply's flags.
func (op *Operation) applyOptions() engine.ApplyOptions {
	return engine.ApplyOptions{Parallelism: op.Parallelism, Force: op.Force}
}

// identityFiles are the -identity flags, then the files EGGO_IDENTITY
// lists (separated by ':').
func identityFiles(flags []string, env []string) []string {
	out := append([]string(nil), flags...)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "EGGO_IDENTITY="); ok {
			for _, f := range strings.Split(v, ":") {
				if f != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// testKinds, when set by a test, limits the resource kinds every command
// plans and applies with (nil: kinds.All()). The command layer's
// own tests use the host kind alone so that they do not need a cluster that
// can really run etcd and the Kubernetes services.
var testKinds []resources.Kind

// operationFlagsHelp documents the shared flags.
const operationFlagsHelp = `  -state=PATH          State file (default eggo.state in the configuration directory).
  -var 'NAME=VALUE'    Set a variable; repeatable.
  -var-file=FILE       Read variables from an HCL (or .json) file; repeatable.
  -target=ADDR         Only this resource and what it depends on; repeatable.
  -replace=ADDR        Plan to replace this resource even if unchanged; repeatable.
  -refresh=false       Do not read the live hosts first; trust the state.
  -parallelism=N       At most N resource operations at once (default 10).
  -force               A host that cannot be reached: remove its resources that are being
                       deleted from the cluster and the state without touching it.
  -identity=FILE       An age identity file or SSH private key that decrypts the
                       state's secrets; repeatable. EGGO_IDENTITY=FILE[:FILE] too.
` + confineFlagHelp + `
  -json                Machine-readable output (JSON lines).`

// confineFlagHelp documents -confine-files (validate, plan, apply, destroy,
// graph).
const confineFlagHelp = `  -confine-files       For a configuration you do not trust with this machine: file(),
                       templatefile(), hook and manifest files read only its directory
                       and its packages link; no hook runs here. EGGO_CONFINE_FILES=1
                       too (every command); always on in a GitOps Job.`

// stateFlagsHelp documents the flags every command reading the state
// takes (parseStateArgs): the configuration is loaded for its backend and
// secrets blocks, so its variables may be given too.
const stateFlagsHelp = `Options (every command that reads the state):
  -state=PATH          State file (default eggo.state in the configuration directory).
  -identity=FILE       An age identity file or SSH private key that decrypts the
                       state's secrets; repeatable. EGGO_IDENTITY=FILE[:FILE] too.
  -var 'NAME=VALUE'    A variable the configuration needs to be loaded; repeatable.
  -var-file=FILE       Variables from a file; repeatable.`

// hookFlagsHelp documents the hook flags of plan, apply and destroy.
const hookFlagsHelp = `
Hooks (each flag repeatable; they join the HCL hooks for this run and show in its plan):
  --prehook=PATH[,ROLE]     Run PATH (a script, or each script of a directory in name
                            order) on every node with ROLE (master, worker, etcd,
                            loadbalance; none: every node) before each operation:
                            deploy, join, delete, upgrade; with destroy or
                            plan -destroy, cleanup.
  --posthook=PATH[,ROLE]    The same, after each operation.
  --cluster-prehook=PATH    Run PATH once per operation, on the first master, before it.
  --cluster-posthook=PATH   The same, after it.
  Relative paths start at the working directory. The plan names them
  hook.cli_prehook_1, hook.cli_cluster_posthook_1 … in the order given.`
