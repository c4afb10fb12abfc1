package jobrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// summarize counts the plan's changes (its change_summary line), lists
// each node's operations ("create host.w0") and the hooks it runs, from
// `eggo plan -json`'s lines (jsonmsg's messages).
func summarize(lines []byte) (v1alpha1.PlanSummary, error) {
	var s v1alpha1.PlanSummary
	nodes := map[string][]string{}
	seen := false
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var l jsonmsg.Line
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch l.Type {
		case jsonmsg.TypePlannedChange:
			var m jsonmsg.PlannedChange
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			node := m.Node
			if node == "" {
				node = "(cluster)"
			}
			nodes[node] = append(nodes[node], m.Action+" "+m.Address)
		case jsonmsg.TypePlannedHook:
			var m jsonmsg.PlannedHook
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			s.Hooks = append(s.Hooks, m.Address)
		case jsonmsg.TypeChangeSummary:
			var m jsonmsg.ChangeSummary
			if json.Unmarshal(line, &m) != nil {
				continue
			}
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
