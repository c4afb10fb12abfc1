package state

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
)

// The sharing pass MarshalWith used until it wrote each value once: it
// serialized every value worth sharing into a scratch buffer to count
// them, then the writer serialized them all again. It stays here as the
// definition the writer's single pass is held to (TestShareMatchesReference).

// shareCandidate is one distinct value met while counting.
type shareCandidate struct {
	value any
	count int
	id    string
}

// shareValues replaces, in c's resources, each attribute value held more
// than once by a reference, and returns the table of the values (nil when
// nothing is shared). The attribute maps it changes are copied: they
// belong to the caller.
func shareValues(c *State) map[string]any {
	var scratch jsonWriter
	seen := map[string]*shareCandidate{}
	type place struct {
		resource int
		name     string
		e        *shareCandidate
	}
	var places []place
	for i := range c.Resources {
		for name, v := range c.Resources[i].Attributes {
			// A secret stays in its resource, beside its mark (in a
			// file without recipients it is plain, but never unmarked).
			if slices.Contains(c.Resources[i].Sensitive, name) || !worthSharing(&scratch, v) {
				continue
			}
			e := seen[string(scratch.buf)]
			if e == nil {
				e = &shareCandidate{value: v}
				seen[string(scratch.buf)] = e
			}
			e.count++
			places = append(places, place{i, name, e})
		}
	}
	table := assignIDs(seen)
	if len(table) == 0 {
		return nil
	}
	copied := -1
	for _, p := range places {
		if p.e.id == "" {
			continue
		}
		r := &c.Resources[p.resource]
		if copied != p.resource {
			r.Attributes = maps.Clone(r.Attributes)
			copied = p.resource
		}
		r.Attributes[p.name] = sharedPrefix + p.e.id
	}
	return table
}

// worthSharing says whether v is long enough to share, leaving its bytes
// in w.buf when it is (scalars and short strings are never written out).
func worthSharing(w *jsonWriter, v any) bool {
	switch v := v.(type) {
	case string:
		if len(v) < minShared && !isReference(v) {
			return false
		}
	case map[string]any, []any:
	default:
		return false
	}
	w.buf = w.buf[:0]
	w.value(v, 0)
	return len(w.buf) >= minShared || isReference(v)
}

// assignIDs gives an id to every candidate worth sharing and returns the
// table. An id is the first 12 hex digits of the sha256 of the value's
// bytes; should two values meet on those, the later (in byte order) takes
// all 64, so the ids are the same for the same values on every write.
func assignIDs(seen map[string]*shareCandidate) map[string]any {
	var keys []string
	for k, e := range seen {
		if e.count >= 2 || isReference(e.value) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	table := make(map[string]any, len(keys))
	for _, k := range keys {
		sum := sha256.Sum256([]byte(k))
		id := hex.EncodeToString(sum[:6])
		if _, taken := table[id]; taken {
			id = hex.EncodeToString(sum[:])
		}
		seen[k].id = id
		table[id] = seen[k].value
	}
	return table
}
