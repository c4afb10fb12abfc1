package engine

import (
	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
)

var actionColors = map[resources.Action]string{
	resources.NoOp:    "gray",
	resources.Create:  "green",
	resources.Update:  "orange",
	resources.Replace: "purple",
	resources.Delete:  "red",
}

// DOT renders the plan's graph in Graphviz DOT, each resource coloured by
// its planned action.
func DOT(p *Plan) (string, error) {
	g, err := stepGraph(p)
	if err != nil {
		return "", err
	}
	return g.DOT(func(name string) map[string]string {
		s := p.Step(name)
		return map[string]string{
			"label":     name + " (" + string(s.Action) + ")",
			"color":     actionColors[s.Action],
			"fontcolor": actionColors[s.Action],
		}
	}), nil
}

// stepGraph is the plan's steps and their WaitsFor edges as a graph.
func stepGraph(p *Plan) (*graph.Graph, error) {
	g := graph.New()
	for _, s := range p.Steps {
		g.Add(s.Addr)
	}
	for _, s := range p.Steps {
		for _, d := range s.WaitsFor {
			if err := g.Connect(s.Addr, d); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}
