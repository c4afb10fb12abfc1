package engine

import (
	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// expand asks every kind for its desired resources.
func expand(kinds []resources.Kind, c *resources.Cluster) ([]resources.Desired, error) {
	defer c.Index()()
	var all []resources.Desired
	seen := map[string]string{}
	for _, k := range kinds {
		ds, err := k.Expand(c)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if src, dup := seen[d.Addr]; dup {
				return nil, resources.Blame(d.Where(), "Duplicate resource", "%s is declared twice (first at %s)", d.Addr, src)
			}
			seen[d.Addr] = d.Source
			all = append(all, d)
		}
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
