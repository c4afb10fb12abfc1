package jobrun

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// TestSummarizeReadsEggosPlanLines: the summary is read from the very
// bytes `eggo plan -json` prints (command's golden file, which its tests
// keep byte-identical), plus a hook line as command writes it.
func TestSummarizeReadsEggosPlanLines(t *testing.T) {
	lines, err := os.ReadFile("../../command/testdata/plan/mixed.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	hook, err := json.Marshal(jsonmsg.PlannedHook{Type: jsonmsg.TypePlannedHook, Address: "hook.drain[\"worker-0\"]", Node: "worker-0"})
	if err != nil {
		t.Fatal(err)
	}
	lines = append(append(hook, '\n'), lines...)
	got, err := summarize(lines)
	if err != nil {
		t.Fatal(err)
	}
	want := v1alpha1.PlanSummary{Add: 2, Change: 1, Destroy: 2,
		Nodes: []v1alpha1.NodePlan{
			{Name: "master-0", Operations: []string{"create host.master-0"}},
			{Name: "master-2", Operations: []string{"replace host.master-2"}},
			{Name: "old", Operations: []string{"delete host.old"}},
			{Name: "worker-0", Operations: []string{"update host.worker-0"}},
		},
		Hooks: []string{"hook.drain[\"worker-0\"]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summarize =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := summarize(lines[:len(hook)+1]); err == nil {
		t.Error("lines without a change_summary were summarized")
	}
}

// TestNodeStatesReadTheShowDocument: the nodes' state is read from show
// -json's document as command writes it.
func TestNodeStatesReadTheShowDocument(t *testing.T) {
	show, err := json.MarshalIndent(jsonmsg.State{Resources: []jsonmsg.Resource{
		{Address: "host.w0", Node: "w0"},
		{Address: "service.kubelet[\"w0\"]", Node: "w0", Status: "pending"},
		{Address: "host.m0", Node: "m0"},
		{Address: "pki.cluster_ca"},
	}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := nodeStates(show)
	if err != nil {
		t.Fatal(err)
	}
	want := []v1alpha1.NodeStatus{
		{Name: "m0", State: "Applied (1 resources)"},
		{Name: "w0", State: "Pending (1 of 2 resources pending)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nodeStates = %+v, want %+v", got, want)
	}
}
