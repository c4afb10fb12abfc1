package command

import (
	"context"
	"encoding/json"
	"fmt"
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
  -json                Print {"nodes": [{address, action}], "edges": [{from, to}]}
                       instead of DOT (an edge runs from a dependency to what waits for it).
` + operationFlagsHelp + `

Exit codes: 0 success, 1 error.
`
}

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
		c.diagnostics(diags, loaded, nil)
		return 1
	}
	p, err := engine.MakePlan(context.Background(), o, loaded)
	c.diagnostics(diags, loaded, nil)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	if op.JSON {
		return c.graphJSON(p)
	}
	dot, err := engine.DOT(p)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	io.WriteString(c.streams.Out, dot)
	return 0
}

func (c *GraphCommand) graphJSON(p *engine.Plan) int {
	type node struct {
		Address string `json:"address"`
		Action  string `json:"action"`
	}
	type edge struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	g := struct {
		Nodes []node `json:"nodes"`
		Edges []edge `json:"edges"`
	}{Nodes: []node{}, Edges: []edge{}}
	for _, s := range p.Steps {
		g.Nodes = append(g.Nodes, node{s.Addr, string(s.Action)})
		for _, d := range s.WaitsFor {
			g.Edges = append(g.Edges, edge{From: d, To: s.Addr})
		}
	}
	b, _ := json.MarshalIndent(g, "", "  ")
	fmt.Fprintln(c.streams.Out, string(b))
	return 0
}
