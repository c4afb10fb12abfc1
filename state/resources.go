package state

import (
	"maps"
	"slices"
	"strings"
)

// Lookup, Set and Remove keep Resources sorted by Address and find an
// address by binary search: O(log n) with nothing to go stale. (A map from
// address to position would have to be rebuilt after every insertion or
// removal, because positions shift; interleaving those with lookups, as an
// apply does, would make a first deploy quadratic.)

// find returns the position of addr in s.Resources, or where it belongs.
func (s *State) find(addr string) (int, bool) {
	return slices.BinarySearchFunc(s.Resources, addr, func(r Resource, addr string) int {
		return strings.Compare(r.Address, addr)
	})
}

// Lookup returns the resource at addr. The pointer is into s.Resources: it
// may be changed in place, and is valid until the next Set or Remove.
// Resources must be sorted (as Read returns them and Set keeps them; call
// Sort after editing the slice directly).
func (s *State) Lookup(addr string) (*Resource, bool) {
	i, ok := s.find(addr)
	if !ok {
		return nil, false
	}
	return &s.Resources[i], true
}

// Set records r, replacing the resource with r's address if there is one
// and inserting it in address order otherwise. Replacing is O(log n);
// inserting also moves the resources after it, O(n): tens of microseconds
// at 30,000, but quadratic for a whole first deploy recorded one Set at a
// time, so record resources in batches with SetMany where that matters.
func (s *State) Set(r Resource) {
	i, ok := s.find(r.Address)
	if ok {
		s.Resources[i] = r
		return
	}
	s.Resources = slices.Insert(s.Resources, i, r)
}

// smallBatch is the batch size below which SetMany and RemoveMany work one
// resource at a time rather than rebuilding the slice.
const smallBatch = 8

// SetMany records every resource of rs as Set would (a later one wins over
// an earlier one with the same address) in one pass: replacements in place,
// then the new ones merged in from the back, so each resource moves at most
// once: O(n + k log n) for k resources into a state of n.
func (s *State) SetMany(rs []Resource) {
	if len(rs) <= smallBatch {
		for _, r := range rs {
			s.Set(r)
		}
		return
	}
	batch := slices.Clone(rs)
	slices.SortStableFunc(batch, compareAddress)
	var added []Resource
	for j, r := range batch {
		if j+1 < len(batch) && batch[j+1].Address == r.Address {
			continue // a later one with this address wins
		}
		if i, ok := s.find(r.Address); ok {
			s.Resources[i] = r
		} else {
			added = append(added, r)
		}
	}
	if len(added) == 0 {
		return
	}
	i := len(s.Resources) - 1
	s.Resources = slices.Grow(s.Resources, len(added))[:len(s.Resources)+len(added)]
	for j, k := len(added)-1, len(s.Resources)-1; j >= 0; k-- {
		if i >= 0 && s.Resources[i].Address > added[j].Address {
			s.Resources[k] = s.Resources[i]
			i--
		} else {
			s.Resources[k] = added[j]
			j--
		}
	}
}

// RemoveMany deletes the resources at addrs, keeping the order of the rest,
// in one pass: O(n + k). It returns how many it removed.
func (s *State) RemoveMany(addrs []string) int {
	if len(addrs) <= smallBatch {
		removed := 0
		for _, a := range addrs {
			if s.Remove(a) {
				removed++
			}
		}
		return removed
	}
	gone := make(map[string]struct{}, len(addrs))
	for _, a := range addrs {
		gone[a] = struct{}{}
	}
	before := len(s.Resources)
	s.Resources = slices.DeleteFunc(s.Resources, func(r Resource) bool {
		_, ok := gone[r.Address]
		return ok
	})
	return before - len(s.Resources)
}

// Remove deletes the resource at addr, keeping the order of the rest, and
// reports whether there was one.
func (s *State) Remove(addr string) bool {
	i, ok := s.find(addr)
	if ok {
		s.Resources = slices.Delete(s.Resources, i, i+1)
	}
	return ok
}

// Sort restores the order of Resources by Address after direct edits of the
// slice. It is a no-op check on a sorted state.
func (s *State) Sort() {
	if !slices.IsSortedFunc(s.Resources, compareAddress) {
		slices.SortStableFunc(s.Resources, compareAddress)
	}
}

// Copy returns a deep copy of s: nothing in the copy shares memory with s,
// so a run can change its working state while the prior one stays intact.
// Attribute values are copied as JSON values (maps, slices and scalars);
// anything else, which the Attrs contract rules out, is shared.
func (s *State) Copy() *State {
	if s == nil {
		return nil
	}
	c := *s
	if s.Resources != nil {
		c.Resources = make([]Resource, len(s.Resources))
		for i, r := range s.Resources {
			r.Attributes = copyMap(r.Attributes)
			r.Sensitive = slices.Clone(r.Sensitive)
			r.Dependencies = slices.Clone(r.Dependencies)
			r.Sealed = maps.Clone(r.Sealed)
			c.Resources[i] = r
		}
	}
	c.Outputs = copyMap(s.Outputs)
	c.Recipients = slices.Clone(s.Recipients)
	c.HostKeys = maps.Clone(s.HostKeys)
	c.SensitiveOutputs = slices.Clone(s.SensitiveOutputs)
	c.SealedOutputs = maps.Clone(s.SealedOutputs)
	c.HookRuns = slices.Clone(s.HookRuns) // runs are never edited in place
	return &c
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := maps.Clone(m)
	for k, v := range c {
		c[k] = copyValue(v)
	}
	return c
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return copyMap(v)
	case []any:
		if v == nil {
			return v
		}
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = copyValue(e)
		}
		return c
	}
	return v // string, float64, bool, nil: immutable
}
