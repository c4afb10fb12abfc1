package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/eggo-project/eggo/resources"
)

// checkPlan lets kinds that judge a whole plan (quorum of an etcd member
// set) refuse it or warn about it; live (nil for none) lets them ask the
// cluster.
func checkPlan(ctx context.Context, live *resources.RunContext, p *Plan, kinds map[string]resources.Kind, have map[string]*resources.Object) error {
	if live == nil {
		ctx = nil // a checker sees no way to the cluster at all
	}
	for _, name := range slices.Sorted(maps.Keys(kinds)) {
		pc, ok := kinds[name].(resources.PlanChecker)
		if !ok {
			continue
		}
		var changes []resources.Change
		for _, s := range p.Steps {
			if s.Kind == name {
				changes = append(changes, s.Change)
			}
		}
		warnings, err := pc.CheckPlan(resources.PlanReview{Changes: changes, Recorded: recordedOf(have, name), Destroy: p.Destroy,
			Record: func(addr string) (resources.Object, bool) {
				if o := have[addr]; o != nil {
					return *o, true
				}
				return resources.Object{}, false
			}, Ctx: ctx, Run: live})
		if err != nil {
			return errorf("%v", err)
		}
		p.Warnings = append(p.Warnings, warnings...)
	}
	return nil
}

// recordedOf lists the recorded objects of a kind, sorted by address.
func recordedOf(have map[string]*resources.Object, kind string) []resources.Object {
	var out []resources.Object
	for _, a := range slices.Sorted(maps.Keys(have)) {
		if o := have[a]; o.Kind == kind {
			out = append(out, *o)
		}
	}
	return out
}
