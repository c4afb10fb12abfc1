package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/maphash"
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

// attrDepth is the depth of an attribute value in the file: resources
// [ { attributes { name: value.
const attrDepth = 4

// isReference is a string that reads as a reference: it must go into the
// table whatever its length or count.
func isReference(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, sharedPrefix)
}

// sharing finds the values held alike while the resources are written,
// so that each value is written once: a value's bytes in the resources
// (a span of the writer's buffer) are what is counted and compared, as
// values at one depth serialize alike. It replaced a pass that wrote
// every value worth sharing once to count it and again into the file:
// on a 1,000-node cluster, a write after every resource spent most of its
// time there.
type sharing struct {
	seed   maphash.Seed
	first  map[uint64]int32 // a span's hash → the last candidate of that hash
	cands  []candidate
	places []place // every span worth sharing, in the order written
}

// candidate is one distinct value worth sharing.
type candidate struct {
	start, end int   // its first span
	count      int32 // the places holding it
	next       int32 // the candidate met before of the same hash, or -1
	ref        bool  // a string that reads as a reference
	id         string
}

// place is a span holding a candidate.
type place struct {
	start, end int
	cand       int32
}

func newSharing(resources int) *sharing {
	return &sharing{seed: maphash.MakeSeed(), first: make(map[uint64]int32, resources/2)}
}

// attributes writes r.Attributes at depth 3, as object does, noting each
// value worth sharing. A secret stays in its resource, beside its mark (in
// a file without recipients it is plain, but never unmarked).
func (w *jsonWriter) attributes(r *Resource) {
	const depth = attrDepth - 1
	m := r.Attributes
	if len(m) == 0 {
		w.object(m, depth)
		return
	}
	w.buf = append(w.buf, '{')
	for i, k := range w.sortedKeys(m, depth) {
		w.key(i == 0, depth+1, k)
		start := len(w.buf)
		v := m[k]
		w.value(v, depth+1)
		if mayShare(v) && !slices.Contains(r.Sensitive, k) {
			w.share.note(w.buf, start, isReference(v))
		}
	}
	w.newline(depth)
	w.buf = append(w.buf, '}')
}

// mayShare is a value that can be long enough to share: scalars and short
// strings never are.
func mayShare(v any) bool {
	switch v := v.(type) {
	case string:
		return len(v) >= minShared || isReference(v)
	case map[string]any, []any:
		return true
	}
	return false
}

// note counts the value buf[start:] (a string reading as a reference when
// ref), if it is long enough: minShared counts its bytes as written alone
// (at depth 0), without the tabs its depth adds after every newline.
func (s *sharing) note(buf []byte, start int, ref bool) {
	span := buf[start:]
	if !ref && len(span)-attrDepth*bytes.Count(span, []byte{'\n'}) < minShared {
		return
	}
	h := maphash.Bytes(s.seed, span)
	c := int32(-1)
	last, seen := s.first[h]
	if seen {
		for j := last; j >= 0; j = s.cands[j].next {
			if bytes.Equal(buf[s.cands[j].start:s.cands[j].end], span) {
				c = j
				break
			}
		}
	}
	if c < 0 {
		c = int32(len(s.cands))
		next := int32(-1)
		if seen {
			next = last
		}
		s.cands = append(s.cands, candidate{start: start, end: len(buf), next: next, ref: ref})
		s.first[h] = c
	}
	s.cands[c].count++
	s.places = append(s.places, place{start, len(buf), c})
}

// shared is a candidate that goes into the table, with its bytes as
// written alone (at depth 0), from which its id is made.
type shared struct {
	cand int32
	flat []byte
}

// assignIDs gives an id to every candidate held twice or more, or reading
// as a reference, and returns those in the table's order (by id). An id
// is the first 12 hex digits of the sha256 of the value's bytes at depth
// 0; should two values meet on those, the later (in byte order) takes all
// 64, so the ids are the same for the same values on every write.
func (s *sharing) assignIDs(res []byte) []shared {
	var table []shared
	size := 0
	for i, c := range s.cands {
		if c.count >= 2 || c.ref {
			table = append(table, shared{cand: int32(i)})
			size += c.end - c.start
		}
	}
	all := make([]byte, 0, size)
	for i := range table {
		c := &s.cands[table[i].cand]
		start := len(all)
		all = reindent(all, res[c.start:c.end], attrDepth, 0)
		table[i].flat = all[start:len(all):len(all)]
	}
	slices.SortFunc(table, func(a, b shared) int { return bytes.Compare(a.flat, b.flat) })
	taken := make(map[string]bool, len(table))
	for _, v := range table {
		sum := sha256.Sum256(v.flat)
		id := hex.EncodeToString(sum[:6])
		if taken[id] {
			id = hex.EncodeToString(sum[:])
		}
		taken[id] = true
		s.cands[v.cand].id = id
	}
	slices.SortFunc(table, func(a, b shared) int { return strings.Compare(s.cands[a.cand].id, s.cands[b.cand].id) })
	return table
}

// table writes the "shared" member: each value at the table's depth.
func (s *sharing) table(w *jsonWriter, table []shared) {
	w.key(false, 1, "shared")
	w.buf = append(w.buf, '{')
	for i, v := range table {
		w.key(i == 0, 2, s.cands[v.cand].id)
		w.buf = reindent(w.buf, v.flat, 0, 2)
	}
	w.newline(1)
	w.buf = append(w.buf, '}')
}

// resources appends res, the resources written, with every shared value
// replaced by its reference.
func (s *sharing) resources(dst, res []byte) []byte {
	prev := 0
	for _, p := range s.places {
		id := s.cands[p.cand].id
		if id == "" {
			continue
		}
		dst = append(dst, res[prev:p.start]...)
		dst = append(dst, '"')
		dst = append(dst, sharedPrefix...)
		dst = append(dst, id...)
		dst = append(dst, '"')
		prev = p.end
	}
	return append(dst, res[prev:]...)
}

// resourcesSize is the length of what resources appends.
func (s *sharing) resourcesSize(res []byte) int {
	n := len(res)
	for _, p := range s.places {
		if id := s.cands[p.cand].id; id != "" {
			n += len(sharedPrefix) + len(id) + 2 - (p.end - p.start)
		}
	}
	return n
}

// reindent appends v, written at depth from, as written at depth to. In
// the file's JSON a newline is only ever followed by its line's depth in
// tabs (a string escapes its newlines), and within a value written at
// depth d every line is at d or deeper; so only those tabs differ.
func reindent(dst, v []byte, from, to int) []byte {
	for {
		i := bytes.IndexByte(v, '\n')
		if i < 0 {
			return append(dst, v...)
		}
		dst = append(dst, v[:i+1]...)
		for range to {
			dst = append(dst, indent...)
		}
		v = v[i+1+from*len(indent):]
	}
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
