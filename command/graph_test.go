package command

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGraphOutput(t *testing.T) {
	f := newFixture(t)
	f.writeConfig("")
	f.write("more.hcl", `node "n2" {
  address    = "127.0.0.2"
  roles      = ["worker"]
  depends_on = [node.n1]
}
`)
	dot := f.mustRun(0, "graph", "-refresh=false").out
	for _, want := range []string{"digraph eggo {", `"host.n1" -> "host.n2"`, "host.n2 (create)", "green"} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	var g struct {
		Nodes []struct{ Address, Action string }
		Edges []struct{ From, To string }
	}
	if err := json.Unmarshal([]byte(f.mustRun(0, "graph", "-refresh=false", "-json").out), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 2 || len(g.Edges) != 1 || g.Edges[0].From != "host.n1" || g.Edges[0].To != "host.n2" {
		t.Fatalf("graph -json = %+v", g)
	}
}
