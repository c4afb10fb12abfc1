package command

import "context"

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
	req := op.request(c.streams.Env)
	req.Log = c.logger()
	ws, ok := c.open(req, c.text())
	if !ok {
		return 1
	}
	defer ws.Close()
	p, err := ws.Plan(context.Background(), op.planOptions(), nil)
	loaded := ws.Loaded()
	c.text().Diagnostics(loaded.Diags, loaded)
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
