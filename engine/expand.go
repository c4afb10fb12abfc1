package engine

import (
	"sync"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// expand asks every kind for its desired resources. They are gathered
// into one list of the right size once every kind has answered: a
// Desired is large, and growing the list a kind at a time copied 7,000 of
// them over and over for 1,000 nodes.
//
// The kinds expand at the same time, on every core (a kind reads the
// cluster and writes only its own answer); the answer is the one kind
// after kind in order gives, errors included.
func expand(kinds []resources.Kind, c *resources.Cluster) ([]resources.Desired, error) {
	defer c.Index()()
	perKind := make([][]resources.Desired, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			perKind[i], errs[i] = k.Expand(c)
		}()
	}
	wg.Wait()
	seen := map[string]string{}
	for i, ds := range perKind {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, d := range ds {
			if src, dup := seen[d.Addr]; dup {
				return nil, resources.Blame(d.Where(), "Duplicate resource", "%s is declared twice (first at %s)", d.Addr, src)
			}
			seen[d.Addr] = d.Source
		}
	}
	all := make([]resources.Desired, 0, len(seen))
	for _, ds := range perKind {
		all = append(all, ds...)
	}
	return all, nil
}

// recall lets the kinds that keep earlier applies' choices (a worker's pod
// subnet) read them from the prior state before anything expands, so a
// plan, refreshed or not, keeps them.
func recall(kinds []resources.Kind, c *resources.Cluster, prior *state.State) {
	for _, k := range kinds {
		if r, ok := k.(resources.Recaller); ok {
			r.Recall(c, (&recorder{st: prior}).recorded)
		}
	}
}

func kindIndex(kinds []resources.Kind) map[string]resources.Kind {
	m := make(map[string]resources.Kind, len(kinds))
	for _, k := range kinds {
		m[k.Name()] = k
	}
	return m
}

func outputs(cfg *config.Config) []Output {
	var out []Output
	for _, o := range cfg.Outputs {
		out = append(out, Output{Name: o.Name, Value: ctyToJSON(o.Value), Sensitive: o.Sensitive})
	}
	return out
}
