package hook

import (
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hookrun"
)

func TestParseHookEvent(t *testing.T) {
	for _, op := range Operations {
		for _, tm := range []Timing{Pre, Post} {
			e := Event{tm, op}
			if got, ok := ParseEvent(e.String()); !ok || got != e {
				t.Errorf("ParseHookEvent(%q) = %v, %v", e.String(), got, ok)
			}
		}
	}
	for _, bad := range []string{"", "prejoin", "pre-", "Pre-join", "during-join"} {
		if _, ok := ParseEvent(bad); ok {
			t.Errorf("ParseHookEvent(%q) accepted", bad)
		}
	}
	if Pre.EnvType() != "prehook" || Post.EnvType() != "posthook" {
		t.Error("EGGO_HOOK_TYPE values")
	}
}

func TestHookSelects(t *testing.T) {
	w0 := resources.Node{Name: "w0", Roles: []string{"worker"}}
	m0 := resources.Node{Name: "m0", Roles: []string{"master", "etcd"}}
	cases := []struct {
		h      Hook
		w0, m0 bool
	}{
		{Hook{Scope: NodeScope}, true, true},
		{Hook{Scope: NodeScope, Roles: []string{"etcd"}}, false, true},
		{Hook{Scope: NodeScope, Nodes: []string{"w0"}}, true, false},
		{Hook{Scope: NodeScope, Roles: []string{"master"}, Nodes: []string{"w0"}}, true, true}, // union
		{Hook{Scope: ClusterScope}, false, false},
	}
	for i, c := range cases {
		if c.h.Selects(&w0) != c.w0 || c.h.Selects(&m0) != c.m0 {
			t.Errorf("case %d: Selects(w0)=%v Selects(m0)=%v", i, c.h.Selects(&w0), c.h.Selects(&m0))
		}
	}
}

func TestHookPolicyAndShellSpec(t *testing.T) {
	h := Hook{Name: "x", Timeout: 7, Grace: 3, Shell: &Shell{Scripts: []hookrun.Script{{Name: "a"}}}}
	for op, want := range map[Operation]hookrun.Policy{Deploy: hookrun.Abort, Join: hookrun.Abort,
		Upgrade: hookrun.Abort, Delete: hookrun.Continue, Cleanup: hookrun.Continue} {
		if got := h.ShellSpec(op).Policy; got != want {
			t.Errorf("%s: policy %q, want %q", op, got, want)
		}
	}
	h.Policy, h.Attempts, h.Fallback = hookrun.Retry, 4, hookrun.Continue
	s := h.ShellSpec(Cleanup)
	if s.Policy != hookrun.Retry || s.Attempts != 4 || s.Fallback != hookrun.Continue || s.Hook != "x" ||
		s.Timeout != 7 || s.Grace != 3 || len(s.Scripts) != 1 {
		t.Errorf("ShellSpec = %+v", s)
	}
}

func TestExpandHookArgs(t *testing.T) {
	args := map[string]string{"a": "{{ node.ip }}:{{node.name}}", "b": "{{ cluster.name }}", "c": "plain"}
	got := ExpandArgs(args, map[string]string{"node.ip": "10.0.0.1", "node.name": "w0", "cluster.name": "demo"})
	if got["a"] != "10.0.0.1:w0" || got["b"] != "demo" || got["c"] != "plain" {
		t.Errorf("ExpandHookArgs = %v", got)
	}
	if args["a"] != "{{ node.ip }}:{{node.name}}" {
		t.Error("ExpandHookArgs changed its input")
	}
}
