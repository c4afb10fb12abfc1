package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Sharing keeps a value that many resources record alike once in the file.
// A cluster of a thousand workers records the same unit file, health
// check, cleanup script, bundle file list and connection on every worker;
// written out each time they were two thirds of the file. On write, an
// attribute value that two or more resources hold (or that is long and
// held twice by one) goes into the top-level "shared" table under an id
// made from its bytes, and each place it was holds the string
// "@shared:ID" instead. On read, every such string is replaced by the
// value again, so nothing but the file ever sees a reference.
//
// A string that itself begins with "@shared:" is always moved into the
// table, so a reference in the file is never ambiguous. A sensitive value
// is never shared.

// sharedPrefix begins a reference to the shared table.
const sharedPrefix = "@shared:"

// minShared is the smallest value worth a reference: one shorter than
// `"@shared:0123456789ab"` and its table entry would grow the file.
const minShared = 64

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

// isReference is a string that reads as a reference: it must go into the
// table whatever its length or count.
func isReference(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, sharedPrefix)
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

// resolveShared puts the shared values back in place of their references.
// The resources that held one value alike hold the same value again, maps
// and lists included, without a copy each: copying a thousand workers'
// bundle file lists took a tenth of a no-op plan. Attributes read from a
// state are read-only (a plan only reads them); a run that changes its
// state works on State.Copy, which shares nothing.
func resolveShared(s *State, table map[string]any) error {
	for i := range s.Resources {
		if err := resolveRefs(s.Resources[i].Address, s.Resources[i].Attributes, table); err != nil {
			return err
		}
	}
	return nil
}

// resolveRefs is resolveShared for one resource's attributes. The reader
// calls it as it reads each resource when the table came first (eggo
// writes it first), on the cores that read them.
func resolveRefs(addr string, attrs map[string]any, table map[string]any) error {
	for name, v := range attrs {
		ref, ok := v.(string)
		if !ok || !strings.HasPrefix(ref, sharedPrefix) {
			continue
		}
		id := ref[len(sharedPrefix):]
		shared, ok := table[id]
		if !ok {
			return fmt.Errorf("resource %s: attribute %q refers to shared value %q, which the file's \"shared\" table does not hold", addr, name, id)
		}
		attrs[name] = shared
	}
	return nil
}
