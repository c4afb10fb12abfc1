package command

import (
	"context"

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
  -json                Print {"nodes": [{address, action}], "edges": [{from, to}]}
                       instead of DOT (an edge runs from a dependency to what waits for it).
` + operationFlagsHelp + `

Exit codes: 0 success, 1 error.
`
}

// Run prints the graph in the view -json picks; the plan's diagnostics
// and errors are text on stderr in either format.
func (c *GraphCommand) Run(args []string) int {
	op, err := parseOperation("graph", args)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	o := op.engineOptions(c.streams.Env)
	o.Log = c.logger()
	loaded, diags := engine.LoadConfig(o)
	if diags.HasErrors() {
		c.text().Diagnostics(diags, loaded)
		return 1
	}
	p, err := engine.MakePlan(context.Background(), o, loaded)
	c.text().Diagnostics(diags, loaded)
	if err != nil {
		showError(c.text(), err, loaded)
		return 1
	}
	if err := c.view(op.JSON).Graph(p); err != nil {
		c.errorf("%v", err)
		return 1
	}
	return 0
}
