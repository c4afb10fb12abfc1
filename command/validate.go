package command

// ValidateCommand is `eggo validate`.
type ValidateCommand struct{ *meta }

func (c *ValidateCommand) Synopsis() string { return "Check the configuration" }

func (c *ValidateCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] validate [options]

  Loads every *.hcl file of the directory and checks it: syntax, blocks and
  attributes, variables, references, functions, node names and addresses,
  roles, CIDRs, and what each resource kind needs (such as the package
  bundle). It reads no state and contacts no host.

  A variable without a value (given or default) is not an error here: it
  is taken as an unknown value of its type, and what depends on it is not
  checked, nor are the resource kinds' needs. Values given with -var,
  -var-file or EGGO_VAR_NAME are used and checked.

Options:
  -var 'NAME=VALUE'    Set a variable; repeatable.
  -var-file=FILE       Read variables from a file; repeatable.
` + confineFlagHelp + `
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
	req := op.request(c.streams.Env)
	// A variable without a value is unknown here, not an error: CI
	// validates without the values of a real cluster (as Terraform's
	// validate does). Values given are used and checked. No state is
	// read and no host contacted.
	req.Vars.Validate, req.NoState = true, true
	req.Vars.CheckKeyFiles = true // a missing key is an error at its line, not in the middle of an apply
	ws, ok := c.open(req, v)
	if !ok {
		return 1
	}
	defer ws.Close()
	loaded := ws.Loaded()
	v.Diagnostics(loaded.Diags, loaded)
	// The resource kinds check a whole model (not one with unknowns, whose
	// stand-ins they would refuse).
	if err := ws.Validate(); err != nil {
		showError(v, err, loaded)
		return 1
	}
	cfg := loaded.Config
	v.Valid(len(cfg.Cluster.Nodes), cfg.Unset)
	return 0
}
