package command

import (
	"context"
	"io"

	"github.com/eggo-project/eggo/engine"
)

// GraphCommand is `eggo graph`.
type GraphCommand struct{ *meta }

func (c *GraphCommand) Synopsis() string { return "Print the resource graph in DOT" }

func (c *GraphCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] graph [options]

  Plans (like 'eggo plan') and prints the resource graph in Graphviz DOT:
  an arrow from a resource to the ones that wait for it, each resource
  coloured by its planned action (green create, orange update, purple
  replace, red destroy, gray no change). Render it with: eggo graph | dot -Tsvg

Options:
  -destroy             Graph the destroy plan.
` + operationFlagsHelp + `

Exit codes: 0 success, 1 error.
`
}

func (c *GraphCommand) Run(args []string) int {
	op, err := parseOperation("plan", args)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	o := op.engineOptions(c.streams.Env, "graph")
	o.Log = c.logger()
	p, loaded, diags, err := engine.MakePlan(context.Background(), o)
	c.diagnostics(diags, loaded, nil)
	if diags.HasErrors() {
		return 1
	}
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	dot, err := engine.DOT(p)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	io.WriteString(c.streams.Out, dot)
	return 0
}
