package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Marshal returns the canonical bytes of s: JSON with sorted map keys at
// every level, a tab a level of indent and a trailing newline, Resources sorted by
// Address, Sensitive and Dependencies sorted, a nil Attributes map written
// as {} and nil or empty Sensitive, Dependencies and Outputs omitted. Equal
// states encode to identical bytes, so git diffs show only real changes.
// s itself is not modified. A value JSON cannot represent (NaN, a
// channel…), which the Attrs contract rules out, is an error naming the
// resource and attribute.
func Marshal(s *State) ([]byte, error) { return MarshalWith(s, nil) }

// MarshalWith is Marshal sealing the secrets with k (see Keyring); k nil
// writes every value as it is in s.
func MarshalWith(s *State, k *Keyring) ([]byte, error) {
	c, err := canonical(s)
	if err != nil {
		return nil, err
	}
	k, err = writeKeyring(k, s)
	if err != nil {
		return nil, err
	}
	var unreadable []string
	if err := sealState(c, k, &unreadable); err != nil {
		return nil, err
	}
	c.Shared = shareValues(c)
	// <, > and & stay readable (no HTML escaping): the file is meant for
	// people and git diffs.
	w := jsonWriter{buf: make([]byte, 0, 512*len(c.Resources)+256)}
	w.state(c)
	if w.err != nil {
		return nil, explainEncodeError(c, w.err)
	}
	return w.buf, nil
}

// emptyAttributes stands in for a nil Attributes map so that nil and empty
// encode alike. It is only ever read.
var emptyAttributes = map[string]any{}

// canonical returns a shallow copy of s in the order the file uses. It
// copies the resource slice (not the attribute maps) so the caller's state
// is left as it was.
func canonical(s *State) (*State, error) {
	c := *s
	c.Resources = make([]Resource, len(s.Resources))
	for i, r := range s.Resources {
		r.Sensitive = heldOnly(sortedCopy(r.Sensitive), r)
		r.Dependencies = sortedCopy(r.Dependencies)
		if r.Attributes == nil {
			r.Attributes = emptyAttributes
		}
		c.Resources[i] = r
	}
	c.SensitiveOutputs = sortedCopy(s.SensitiveOutputs)
	// Stable, so that even a state with duplicate addresses (which Write
	// refuses) encodes the same way every time.
	slices.SortStableFunc(c.Resources, compareAddress)
	return &c, nil
}

func compareAddress(a, b Resource) int { return strings.Compare(a.Address, b.Address) }

// heldOnly is names without those r holds no value of: a mark on a value
// the record does not keep (a service's file sources, kept as digests)
// protects nothing, and on a thousand nodes it is a line in every record.
func heldOnly(names []string, r Resource) []string {
	for i, name := range names {
		_, plain := r.Attributes[name]
		_, sealed := r.Sealed[name]
		if !plain && !sealed {
			out := slices.Clone(names[:i])
			for _, n := range names[i+1:] {
				_, plain = r.Attributes[n]
				_, sealed = r.Sealed[n]
				if plain || sealed {
					out = append(out, n)
				}
			}
			return out
		}
	}
	return names
}

// sortedCopy returns ss sorted, copying only when it is not sorted already.
func sortedCopy(ss []string) []string {
	if slices.IsSorted(ss) {
		return ss
	}
	ss = slices.Clone(ss)
	slices.Sort(ss)
	return ss
}

// explainEncodeError finds the resource and attribute behind a failed
// encode. The value itself is never printed: it may be a secret.
func explainEncodeError(s *State, err error) error {
	for _, r := range s.Resources {
		for _, k := range slices.Sorted(maps.Keys(r.Attributes)) {
			if _, e := json.Marshal(r.Attributes[k]); e != nil {
				return fmt.Errorf("resource %s: attribute %q holds a %T, which the state file cannot store (attributes must be JSON values)", r.Address, k, r.Attributes[k])
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Outputs)) {
		if _, e := json.Marshal(s.Outputs[k]); e != nil {
			return fmt.Errorf("output %q holds a %T, which the state file cannot store (outputs must be JSON values)", k, s.Outputs[k])
		}
	}
	return fmt.Errorf("encoding state: %w", err)
}
