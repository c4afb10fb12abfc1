package command

import (
	"encoding/json"
	"fmt"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/state"
)

// The JSON view of show, state show, hooks and graph: one indented
// document each, for a program or a person with jq.

func (v *jsonView) document(doc any) {
	b, _ := json.MarshalIndent(doc, "", "  ")
	v.mu.Lock()
	defer v.mu.Unlock()
	fmt.Fprintln(v.out, string(b))
}

func (v *jsonView) State(st *state.State) {
	var rs []jsonmsg.Resource
	for i := range st.Resources {
		rs = append(rs, resourceDocOf(&st.Resources[i]))
	}
	v.document(jsonmsg.State{FormatVersion: st.FormatVersion, Serial: st.Serial, Lineage: st.Lineage,
		EggoVersion: st.EggoVersion, Resources: rs, Outputs: shownOutputs(st)})
}

func (v *jsonView) Resource(r *state.Resource) { v.document(resourceDocOf(r)) }

func resourceDocOf(r *state.Resource) jsonmsg.Resource {
	return jsonmsg.Resource{Address: r.Address, Kind: r.Kind, Node: r.Node, Status: r.Status,
		Attributes: redacted(r.Attributes, r.Sensitive), Dependencies: r.Dependencies}
}

// HookRuns is a JSON array even when no run is recorded.
func (v *jsonView) HookRuns(runs []state.HookRun) {
	if runs == nil {
		runs = []state.HookRun{}
	}
	v.document(runs)
}

func (v *jsonView) HookRun(r state.HookRun) { v.document(r) }

func (v *jsonView) Graph(p *engine.Plan) error {
	g := jsonmsg.Graph{Nodes: []jsonmsg.GraphNode{}, Edges: []jsonmsg.GraphEdge{}}
	for _, s := range p.Steps {
		g.Nodes = append(g.Nodes, jsonmsg.GraphNode{Address: s.Addr, Action: string(s.Action)})
		for _, d := range s.WaitsFor {
			g.Edges = append(g.Edges, jsonmsg.GraphEdge{From: d, To: s.Addr})
		}
	}
	v.document(g)
	return nil
}
