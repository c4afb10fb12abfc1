package jobrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// message is the part of `eggo plan -json`'s lines a summary needs.
type message struct {
	Type    string `json:"type"`
	Action  string `json:"action"`
	Address string `json:"address"`
	Node    string `json:"node"`
	Add     int    `json:"add"`
	Change  int    `json:"change"`
	Destroy int    `json:"destroy"`
}

// summarize counts the plan's changes (its change_summary line), lists
// each node's operations ("create host.w0") and the hooks it runs.
func summarize(lines []byte) (v1alpha1.PlanSummary, error) {
	var s v1alpha1.PlanSummary
	nodes := map[string][]string{}
	seen := false
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Type {
		case "planned_change":
			node := m.Node
			if node == "" {
				node = "(cluster)"
			}
			nodes[node] = append(nodes[node], m.Action+" "+m.Address)
		case "planned_hook":
			s.Hooks = append(s.Hooks, m.Address)
		case "change_summary":
			s.Add, s.Change, s.Destroy, seen = m.Add, m.Change, m.Destroy, true
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if !seen {
		return s, fmt.Errorf("eggo plan -json printed no change_summary")
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.Nodes = append(s.Nodes, v1alpha1.NodePlan{Name: n, Operations: nodes[n]})
	}
	return s, nil
}
