package engine

import (
	"maps"
	"slices"
	"sort"

	"github.com/eggo-project/eggo/graph"
	"github.com/eggo-project/eggo/resources"
)

// rollUnit is one node's steps in a rolling group.
type rollUnit struct {
	name  string
	steps []*Step
}

// rollEdges orders the updates of existing resources that belong to rolling
// groups (an upgrade): within a group, units (nodes) go Batch at a time,
// each batch waiting for every step of the one before; groups go in Stage
// order. Creates and deletes are never held back: a new cluster comes up
// in parallel. The edges are added to g and to the steps' WaitsFor, so a
// failure skips the rest of the roll and leaves the cluster serving.
func rollEdges(g *graph.Graph, steps map[string]*Step) error {
	groups := map[string]map[string]*rollUnit{}
	stageOf := map[string]int{}
	for _, s := range steps {
		if s.Desired == nil || s.Desired.Roll == nil {
			continue
		}
		existing := s.Prior != nil && (s.Action == resources.Update || s.Action == resources.Replace)
		if !existing && !(s.Rolling && s.Action == resources.Create) {
			continue
		}
		r := s.Desired.Roll
		if groups[r.Group] == nil {
			groups[r.Group] = map[string]*rollUnit{}
		}
		stageOf[r.Group] = r.Stage
		u := groups[r.Group][r.Unit]
		if u == nil {
			u = &rollUnit{name: r.Unit}
			groups[r.Group][r.Unit] = u
		}
		u.steps = append(u.steps, s)
	}
	names := slices.Sorted(maps.Keys(groups))
	sort.SliceStable(names, func(i, j int) bool { return stageOf[names[i]] < stageOf[names[j]] })

	var earlier, thisStage []*Step // rolling steps of the stages before, and of this one
	connect := func(s *Step, deps []*Step) error {
		for _, d := range deps {
			if d.Addr == s.Addr || contains(s.WaitsFor, d.Addr) {
				continue
			}
			if err := g.Connect(s.Addr, d.Addr); err != nil {
				return err
			}
			s.WaitsFor = append(s.WaitsFor, d.Addr)
		}
		sort.Strings(s.WaitsFor)
		return nil
	}
	for gi, name := range names {
		if gi > 0 && stageOf[names[gi-1]] != stageOf[name] {
			earlier, thisStage = append(earlier, thisStage...), nil
		}
		units := make([]*rollUnit, 0, len(groups[name]))
		for _, u := range groups[name] {
			units = append(units, u)
		}
		// Units that join the group go after the ones already in it: an
		// etcd member stopped outside eggo is repaired before a new member
		// is added, or etcd would refuse the add for want of quorum.
		sort.Slice(units, func(i, j int) bool {
			if ji, jj := units[i].joins(), units[j].joins(); ji != jj {
				return jj
			}
			return units[i].name < units[j].name
		})
		batch := units[0].steps[0].Desired.Roll.Batch
		if batch < 1 {
			batch = 1
		}
		prev := append([]*Step(nil), earlier...)
		for i := 0; i < len(units); i += batch {
			var cur []*Step
			for _, u := range units[i:min(i+batch, len(units))] {
				cur = append(cur, u.steps...)
			}
			for _, s := range cur {
				if err := connect(s, prev); err != nil {
					return err
				}
			}
			prev = cur
			thisStage = append(thisStage, cur...)
		}
	}
	return g.Validate()
}

// joins reports whether every step of a unit creates a member of its group
// (a node joining it) rather than changing one already there.
func (u *rollUnit) joins() bool {
	for _, s := range u.steps {
		if s.Action != resources.Create {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
