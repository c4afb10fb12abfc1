package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kinds"
)

// TestGeneratedStateIsNoOp: the state written for a cluster is everything
// created, so a plan there changes nothing; with a worker joined, the plan
// creates that worker's resources only.
func TestGeneratedStateIsNoOp(t *testing.T) {
	for _, join := range []int{0, 1} {
		dir := t.TempDir()
		count, err := generate(dir, 8, join, join == 1)
		if err != nil {
			t.Fatal(err)
		}
		req := engine.Request{Dir: dir, StatePath: filepath.Join(dir, "eggo.state"), Kinds: kinds.All()}
		if join == 1 { // sealed: the plan must open every key to change nothing
			req.Identities = []string{identityOf(dir)}
			if data, _ := os.ReadFile(req.StatePath); !strings.Contains(string(data), `"sealed"`) || strings.Contains(string(data), "PRIVATE KEY") {
				t.Fatal("the sealed cluster's state holds no sealed value, or a plain key")
			}
		}
		ws, err := engine.Open(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ws.Plan(context.Background(), engine.PlanOptions{NoRefresh: true}, nil)
		ws.Close()
		if err != nil {
			t.Fatal(err)
		}
		added := 0
		for _, s := range p.Steps {
			switch {
			case s.Action == resources.Create && s.Node == "w00005":
				added++
			case s.Action != resources.NoOp:
				t.Errorf("join %d: %s: %s %v", join, s.Addr, s.Action, s.Reasons)
			}
		}
		if len(p.Steps) != count+added || join == 1 && added == 0 || join == 0 && added != 0 {
			t.Errorf("join %d: %d steps, %d created, for %d recorded", join, len(p.Steps), added, count)
		}
	}
}
