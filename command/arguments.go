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
	if cmd != "validate" {
		fs.StringVar(&op.StatePath, "state", "eggo.state", "")
		fs.Var(&op.Targets, "target", "")
		fs.Var(&op.Replace, "replace", "")
		fs.BoolVar(&op.Refresh, "refresh", true, "")
		fs.IntVar(&op.Parallelism, "parallelism", engine.DefaultParallelism, "")
		fs.BoolVar(&op.Force, "force", false, "")
	}
	switch cmd {
	case "plan", "graph":
		fs.BoolVar(&op.Destroy, "destroy", false, "")
	}
	switch cmd {
	case "plan":
		fs.StringVar(&op.Out, "out", "", "")
		fs.BoolVar(&op.DetailedExitcode, "detailed-exitcode", false, "")
	case "apply", "destroy":
		fs.BoolVar(&op.AutoApprove, "auto-approve", false, "")
	}
	if err := fs.Parse(args); err != nil {
		return op, fmt.Errorf("%s: %v", cmd, err)
	}
	rest := fs.Args()
	switch {
	case cmd == "apply" && len(rest) == 1:
		op.PlanFile = rest[0]
		if len(op.Vars)+len(op.VarFiles)+len(op.Targets)+len(op.Replace) > 0 || !op.Refresh {
			return op, fmt.Errorf("apply %s: a saved plan is applied exactly as planned; -var, -var-file, -target, -replace and -refresh belong to `eggo plan`", rest[0])
		}
	case len(rest) > 0:
		return op, fmt.Errorf("%s: unexpected argument %q (flags go before arguments; see eggo %s -help)", cmd, rest[0], cmd)
	}
	if op.Parallelism < 1 {
		return op, fmt.Errorf("%s: -parallelism must be at least 1, got %d", cmd, op.Parallelism)
	}
	if cmd == "destroy" {
		op.Destroy = true
	}
	return op, nil
}

// engineOptions turns parsed flags into engine options.
func (op *Operation) engineOptions(env []string) engine.Options {
	return engine.Options{
		Dir:         ".",
		Vars:        config.VarInput{Vars: op.Vars, VarFiles: op.VarFiles, Env: env},
		StatePath:   op.StatePath,
		Parallelism: op.Parallelism,
		Targets:     op.Targets,
		Replace:     op.Replace,
		NoRefresh:   !op.Refresh,
		Destroy:     op.Destroy,
		Force:       op.Force,
		Kinds:       testKinds,
	}
}

// testKinds, when set by a test, limits the resource kinds every command
// plans and applies with (nil: all registered kinds). The command layer's
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
  -json                Machine-readable output (JSON lines).`
