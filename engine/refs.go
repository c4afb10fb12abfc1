package engine

import (
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// resolveForPlan substitutes each Ref in d with the referenced attribute's
// value when that resource keeps its recorded value in this plan, and with
// Unknown when it is being created or changed. It also returns the
// top-level attributes of d that carry a secret through a Ref, which
// become sensitive too. refAttrs are d's attributes that hold a Ref
// (desiredRefs.attrs); the others are shared, as a resource without
// references is whole: a plan only reads what it resolves.
func resolveForPlan(d *resources.Desired, refAttrs []string, steps func(addr string) *Step, have map[string]*resources.Object, sch *schemas) (resources.Desired, []string) {
	out := *d
	if len(refAttrs) == 0 {
		return out, nil
	}
	out.Attrs = maps.Clone(d.Attrs)
	var secret []string
	for _, name := range refAttrs {
		v := d.Attrs[name]
		carries := false
		out.Attrs[name] = resources.Substitute(v, func(r resources.Ref) any {
			if refSensitive(r, steps, have, sch) {
				carries = true
			}
			if s := steps(r.Addr); s != nil && s.Action != resources.NoOp {
				// A changing resource may still know the value it will
				// have (a service's file digest that its change leaves
				// alone); only what it cannot know is unknown.
				if s.Action != resources.Delete && s.After != nil && isKnown(s.After[r.Attr]) {
					return s.After[r.Attr]
				}
				return resources.Unknown{}
			}
			if h := have[r.Addr]; h != nil && h.Attrs != nil {
				return h.Attrs[r.Attr]
			}
			return resources.Unknown{}
		})
		if carries {
			secret = append(secret, name)
		}
	}
	sort.Strings(secret)
	return out, secret
}

func refSensitive(r resources.Ref, steps func(addr string) *Step, have map[string]*resources.Object, sch *schemas) bool {
	kind := ""
	if s := steps(r.Addr); s != nil {
		kind = s.Kind
	} else if h := have[r.Addr]; h != nil {
		kind = h.Kind
	}
	k := sch.of(kind)
	return k != nil && k.schema.Attributes[r.Attr].Sensitive
}

// schemas answers what the plan asks of a kind's schema for each
// resource, asking each kind once: a kind builds its Schema anew on every
// call, and a plan asked it for every step and every reference.
type schemas struct {
	kinds map[string]resources.Kind
	mu    sync.Mutex // steps are planned on every core
	m     map[string]*kindSchema
}

type kindSchema struct {
	schema    resources.Schema
	sensitive []string // the sensitive attributes, sorted: share, never change
}

func newSchemas(kinds map[string]resources.Kind) *schemas {
	return &schemas{kinds: kinds, m: make(map[string]*kindSchema, len(kinds))}
}

// of is kind's schema (nil for a kind not known).
func (s *schemas) of(kind string) *kindSchema {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks, ok := s.m[kind]; ok {
		return ks
	}
	var ks *kindSchema
	if k := s.kinds[kind]; k != nil {
		schema := k.Schema()
		ks = &kindSchema{schema: schema, sensitive: sensitiveIn(schema)}
	}
	s.m[kind] = ks
	return ks
}

// resolveForApply substitutes each Ref with the value recorded in state by
// the resource it names, which the walk has applied before this one.
func resolveForApply(d resources.Desired, lookup func(addr string) (state.Resource, bool)) (resources.Desired, error) {
	if !resources.HasRefs(d.Attrs) {
		return d, nil
	}
	var missing error
	d.Attrs = resources.Substitute(d.Attrs, func(r resources.Ref) any {
		rec, ok := lookup(r.Addr)
		if !ok || rec.Status == state.StatusPending {
			if missing == nil {
				missing = fmt.Errorf("%s refers to %s, which is not applied", d.Addr, r)
			}
			return nil
		}
		return rec.Attributes[r.Attr]
	}).(resources.Attrs)
	return d, missing
}

// isKnown reports whether v is present and holds no Unknown anywhere.
func isKnown(v any) bool {
	switch t := v.(type) {
	case nil, resources.Unknown, resources.Ref:
		return false
	case map[string]any:
		for _, e := range t {
			if _, ok := e.(resources.Unknown); ok {
				return false
			}
			if m, ok := e.(map[string]any); ok && !isKnown(m) {
				return false
			}
			if l, ok := e.([]any); ok && !isKnown(l) {
				return false
			}
		}
	case []any:
		for _, e := range t {
			switch e.(type) {
			case resources.Unknown, resources.Ref:
				return false
			case map[string]any, []any:
				if !isKnown(e) {
					return false
				}
			}
		}
	}
	return true
}
