package command

import (
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

func TestPlanShowsWhichHooksRunWhere(t *testing.T) {
	ev, _ := hook.ParseEvent("pre-join")
	p := &engine.Plan{Steps: []*engine.Step{
		{Change: resources.Change{Addr: "host.w1", Kind: "host", Node: "w1", Action: resources.Create, After: resources.Attrs{"address": "10.0.0.2"}}},
		{Change: resources.Change{Addr: `hook.prep["pre-join/w1"]`, Kind: "hook", Node: "w1", Action: engine.HookRunAction},
			Hook: &engine.HookStep{Name: "prep", Event: ev, Covers: []string{"w1"}, Def: hook.Hook{Name: "prep", Type: hook.TypeShell}}},
		{Change: resources.Change{Addr: `hook.ready["pre-join/w1"]`, Kind: "hook", Node: "w1", Action: engine.HookRunAction},
			Hook: &engine.HookStep{Name: "ready", Event: ev, Covers: []string{"w1"}, Def: hook.Hook{Name: "ready", Type: hook.TypeWeb,
				Policy: "retry", Attempts: 4, Fallback: "continue"}}},
		{Change: resources.Change{Addr: `hook.tell["pre-join"]`, Kind: "hook", Action: engine.HookRunAction},
			Hook: &engine.HookStep{Name: "tell", Event: ev, Covers: []string{"w1"}, Local: true, Node: hook.Node{Name: "m0"},
				Def: hook.Hook{Name: "tell", Type: hook.TypeShell, Scope: hook.ClusterScope, OnOperator: true}}},
	}}
	var b strings.Builder
	renderPlan(&b, p, colorizer(false))
	out := b.String()
	if !strings.Contains(out, `> hook.prep["pre-join/w1"] on w1 (shell hook, pre-join of w1, on failure abort)`) {
		t.Fatalf("plan does not list the hook:\n%s", out)
	}
	if !strings.Contains(out, `> hook.ready["pre-join/w1"] for w1 from this machine (web hook, pre-join of w1, on failure retry 4 times, then continue)`) {
		t.Fatalf("plan does not say where a check runs or how it retries:\n%s", out)
	}
	if !strings.Contains(out, `> hook.tell["pre-join"] on this machine (for m0) (shell hook, pre-join of w1, on failure abort)`) {
		t.Fatalf("plan does not say an operator hook runs here:\n%s", out)
	}
	if !strings.Contains(out, "Plan: 1 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("a hook counted as a resource:\n%s", out)
	}
}
