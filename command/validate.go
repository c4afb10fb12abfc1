package command

import (
	"github.com/eggo-project/eggo/engine"
)

// ValidateCommand is `eggo validate`.
type ValidateCommand struct{ *meta }

func (c *ValidateCommand) Synopsis() string { return "Check the configuration" }

func (c *ValidateCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] validate [options]

  Loads every *.hcl file of the directory and checks it: syntax, blocks and
  attributes, variables, references, functions, node names and addresses,
  roles, CIDRs, and what each resource kind needs (such as the package
  bundle). It reads no state and contacts no host.

Options:
  -var 'NAME=VALUE'    Set a variable; repeatable.
  -var-file=FILE       Read variables from a file; repeatable.
  -json                Machine-readable output.

Exit codes: 0 valid, 1 invalid or error.
`
}

func (c *ValidateCommand) Run(args []string) int {
	op, err := parseOperation("validate", args)
	v := c.view(op != nil && op.JSON)
	if err != nil {
		v.Error(err.Error())
		return 1
	}
	o := op.engineOptions(c.streams.Env)
	loaded, diags := engine.LoadConfig(o)
	v.Diagnostics(diags, loaded)
	if diags.HasErrors() {
		return 1
	}
	if err := engine.Validate(o, loaded); err != nil {
		showError(v, err, loaded)
		return 1
	}
	v.Valid(len(loaded.Config.Cluster.Nodes))
	return 0
}
