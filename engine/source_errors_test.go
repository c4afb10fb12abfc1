package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/host"
)

// TestHookCycleBlamesTheHooksEvents: a cycle through a hook step is
// reported at the hook's on attribute, which placed the step there, so
// the command line shows that line; a hook from the command line (no
// block) keeps the plain error.
func TestHookCycleBlamesTheHooksEvents(t *testing.T) {
	on := resources.SourceRange{Filename: "main.hcl", Start: resources.Pos{Line: 18, Column: 8}, End: resources.Pos{Line: 18, Column: 23}}
	block := resources.SourceRange{Filename: "main.hcl", Start: resources.Pos{Line: 17, Column: 1}, End: resources.Pos{Line: 17, Column: 15}}
	cyclic := func(ranges resources.SourceRanges) *Plan {
		ev := hook.Event{Timing: hook.Pre, Operation: hook.Deploy}
		h := &Step{Change: resources.Change{Addr: `hook.prepare["pre-deploy/n1"]`, Kind: hookKind, Action: HookRunAction},
			Hook: &HookStep{Name: "prepare", Event: ev, Def: hook.Hook{Name: "prepare", Ranges: ranges}}}
		h.WaitsFor = []string{"host.n1"}
		r := &Step{Change: resources.Change{Addr: "host.n1", Kind: "host", Action: resources.Create}}
		r.WaitsFor = []string{h.Addr}
		return &Plan{Steps: []*Step{h, r}}
	}

	err := checkAcyclic(cyclic(resources.SourceRanges{Block: block, Attrs: map[string]resources.SourceRange{"on": on}}))
	var se *resources.SourceError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a SourceError", err, err)
	}
	if se.Range != on || se.Summary != "Hook steps make a cycle" || !strings.Contains(se.Detail, "placing hooks: cycle:") ||
		!strings.Contains(se.Detail, `hook "prepare" on pre-deploy`) {
		t.Errorf("SourceError %+v, want the on attribute blamed", se)
	}
	if !strings.HasPrefix(err.Error(), "main.hcl:18: placing hooks: cycle:") {
		t.Errorf("Error() = %q", err)
	}

	err = checkAcyclic(cyclic(resources.SourceRanges{}))
	if errors.As(err, &se) || err == nil || !strings.HasPrefix(err.Error(), "placing hooks: cycle:") {
		t.Errorf("command-line hook: error %v (%T), want the plain placing error", err, err)
	}
}

// TestDuplicateAddressBlamesTheSecondDeclaration: two resources with one
// address are reported at the second one's block, naming the first.
func TestDuplicateAddressBlamesTheSecondDeclaration(t *testing.T) {
	n := resources.Node{Name: "n1", Source: "main.hcl:11", Address: "10.0.0.1", Roles: []string{"worker"},
		Ranges: resources.SourceRanges{Block: resources.SourceRange{Filename: "main.hcl", Start: resources.Pos{Line: 11, Column: 1}, End: resources.Pos{Line: 11, Column: 12}}}}
	c := &resources.Cluster{Name: "t", Nodes: []resources.Node{n}}
	_, err := expand([]resources.Kind{host.New(), host.New()}, c)
	var se *resources.SourceError
	if !errors.As(err, &se) || se.Summary != "Duplicate resource" || se.Range.Start.Line != 11 {
		t.Fatalf("error %v (%T), want a Duplicate resource at line 11", err, err)
	}
	if want := "main.hcl:11: "; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "is declared twice (first at main.hcl:11)") {
		t.Errorf("Error() = %q", err)
	}
}

// TestUndeclaredDependencyBlamesTheDeclaration: a resource depending on
// an address nothing declares is reported at the block that declared it.
func TestUndeclaredDependencyBlamesTheDeclaration(t *testing.T) {
	at := resources.SourceRange{Filename: "main.hcl", Start: resources.Pos{Line: 3, Column: 1}, End: resources.Pos{Line: 3, Column: 11}}
	want := map[string]*resources.Desired{"host.a": {Addr: "host.a", Kind: "host", Source: "main.hcl:3", Range: at, DependsOn: []string{"host.b"}}}
	_, err := planGraph(want, nil, refsByAddr(want))
	var se *resources.SourceError
	if !errors.As(err, &se) || se.Range != at || err.Error() != "main.hcl:3: host.a: depends on host.b, which is not declared" {
		t.Fatalf("error %v (%T), want host.a's block blamed", err, err)
	}
}
