package command

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestShowState(t *testing.T) {
	f := newFixture(t)
	f.write("out.hcl", `output "where" {
  value = node.n1.address
}
`)
	if r := f.mustRun(0, "show"); !strings.Contains(r.out, "The state is empty") {
		t.Fatalf("show before apply: %q", r.out)
	}
	f.mustRun(0, "apply", "-auto-approve")
	human := f.mustRun(0, "show").out
	for _, want := range []string{"\nhost.n1 {", "Outputs:", `where = "127.0.0.1"`} {
		if !strings.Contains(human, want) {
			t.Errorf("show lacks %q:\n%s", want, human)
		}
	}
	var doc struct {
		Serial    int
		Lineage   string
		Resources []struct{ Address string }
		Outputs   map[string]any
	}
	if err := json.Unmarshal([]byte(f.mustRun(0, "show", "-json").out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Resources) != 1 || doc.Resources[0].Address != "host.n1" || doc.Outputs["where"] != "127.0.0.1" || doc.Lineage == "" {
		t.Fatalf("show -json = %+v", doc)
	}

	// An output changed alone is a change: planned, applied, recorded.
	f.write("out.hcl", `output "where" {
  value = "elsewhere"
}
`)
	if r := f.mustRun(2, "plan", "-detailed-exitcode"); !strings.Contains(r.out, "Changes to Outputs:") || !strings.Contains(r.out, `where = "elsewhere"`) {
		t.Fatalf("plan of an output change:\n%s", r.out)
	}
	f.mustRun(0, "apply", "-auto-approve")
	if !strings.Contains(f.mustRun(0, "show").out, `where = "elsewhere"`) {
		t.Fatal("changed output not recorded")
	}
	f.mustRun(0, "plan", "-detailed-exitcode")
}
