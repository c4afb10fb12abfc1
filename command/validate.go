package command

import (
	"fmt"
	"io"

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
	var jv *jsonView
	if op != nil && op.JSON {
		jv = &jsonView{out: c.streams.Out}
	}
	if err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	o := op.engineOptions(c.streams.Env)
	loaded, diags := engine.LoadConfig(o)
	c.diagnostics(diags, loaded, jv)
	if diags.HasErrors() {
		return 1
	}
	if err := engine.Validate(o, loaded); err != nil {
		c.fail(jv, err.Error())
		return 1
	}
	n := len(loaded.Config.Cluster.Nodes)
	if jv != nil {
		jv.emit(map[string]any{"type": "valid", "nodes": n})
		return 0
	}
	io.WriteString(c.streams.Out, c.col().c(green, "Success!")+fmt.Sprintf(" The configuration is valid (%s).\n", pluralWord(n, "node")))
	return 0
}
