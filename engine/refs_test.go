package engine

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// A value known only after apply flows along the edge in one apply.
func TestRefsFlowInOneApply(t *testing.T) {
	r := newRig(t)
	ds := func(v string) []resources.Desired {
		return []resources.Desired{
			desired("test.ca", resources.Attrs{"value": v, "secret": "key-" + v}),
			desired("test.leaf", resources.Attrs{
				"value":  resources.Ref{Addr: "test.ca", Attr: "value"},
				"nested": map[string]any{"from": resources.Ref{Addr: "test.ca", Attr: "value"}},
				"key":    resources.Ref{Addr: "test.ca", Attr: "secret"},
				"later":  resources.Ref{Addr: "test.ca", Attr: "unplanned"},
			}),
		}
	}
	p := r.plan(r.opts(), ds("v1")...)
	leaf := p.Step("test.leaf")
	if !reflect.DeepEqual(leaf.WaitsFor, []string{"test.ca"}) {
		t.Fatalf("leaf waits for %v: a Ref must add the edge", leaf.WaitsFor)
	}
	// The CA is being created, but the value it will have is in its
	// planned attributes: the leaf knows it already. What the CA's plan
	// cannot know is known only after apply.
	if leaf.After["value"] != "v1" {
		t.Fatalf("leaf value = %#v, want the CA's planned value", leaf.After["value"])
	}
	if _, ok := leaf.After["later"].(resources.Unknown); !ok {
		t.Fatalf("leaf later = %#v, want known after apply", leaf.After["later"])
	}
	if !reflect.DeepEqual(leaf.Sensitive, []string{"key", "secret"}) {
		t.Fatalf("leaf sensitive = %v: an attribute carrying a secret is secret", leaf.Sensitive)
	}
	if res := r.apply(r.opts(), p); !res.OK() {
		t.Fatal(res.Failed)
	}
	st, _ := readStateFile(r.state)
	got, _ := st.Lookup("test.leaf")
	if got.Attributes["value"] != "v1" || got.Attributes["key"] != "key-v1" ||
		!reflect.DeepEqual(got.Attributes["nested"], map[string]any{"from": "v1"}) {
		t.Fatalf("leaf recorded %v", got.Attributes)
	}
	// The state marks the values it holds ("secret" is sensitive in the
	// schema, but the leaf records none).
	if !reflect.DeepEqual(got.Sensitive, []string{"key"}) {
		t.Fatalf("leaf sensitive in state = %v", got.Sensitive)
	}

	// Unchanged: the refs resolve to the recorded values, nothing to do.
	if p := r.plan(r.opts(), ds("v1")...); p.HasChanges() {
		t.Fatalf("plan after apply: %v", actions(p))
	}

	// The referenced resource changes: the dependent follows in the same
	// apply, with the new value, through a saved plan too.
	p = r.plan(r.opts(), ds("v2")...)
	if got := actions(p); got["test.ca"] != resources.Update || got["test.leaf"] != resources.Update {
		t.Fatalf("plan = %v", got)
	}
	path := filepath.Join(t.TempDir(), "plan")
	if err := SavePlan(path, p, PlanSeal{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadPlan(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := r.apply(r.opts(), loaded); !res.OK() {
		t.Fatal(res.Failed)
	}
	st, _ = readStateFile(r.state)
	got, _ = st.Lookup("test.leaf")
	if got.Attributes["value"] != "v2" {
		t.Fatalf("leaf after change = %v", got.Attributes["value"])
	}
}

func TestRefToUndeclaredIsAnError(t *testing.T) {
	r := newRig(t)
	o := r.opts()
	_, err := planDesired(t.Context(), o, []resources.Desired{desired("test.a", resources.Attrs{"v": resources.Ref{Addr: "test.nope", Attr: "x"}})}, nil)
	if err == nil || !strings.Contains(err.Error(), "test.nope") {
		t.Fatalf("err = %v", err)
	}
}
