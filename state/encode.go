package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// <, > and & stay readable (no HTML escaping): the file is meant for
	// people and git diffs.
	share := newSharing(len(c.Resources))
	res := jsonWriter{buf: resourcesBuffer(len(c.Resources)), share: share}
	defer func() { resourcesBuffers.Put(&res.buf) }()
	res.resources(c.Resources)
	if res.err != nil {
		return nil, explainEncodeError(c, res.err)
	}
	resourceBytes.Store(int64(len(res.buf) / max(len(c.Resources), 1)))
	table := share.assignIDs(res.buf)
	var tail jsonWriter
	tail.tail(c)
	if tail.err != nil {
		return nil, explainEncodeError(c, tail.err)
	}
	size := share.resourcesSize(res.buf)
	w := jsonWriter{buf: make([]byte, 0, size+len(tail.buf)+tableSize(table)+headSize(c))}
	w.head(c)
	if len(table) > 0 {
		share.table(&w, table)
	}
	w.key(false, 1, "resources")
	w.buf = share.resources(w.buf, res.buf)
	w.buf = append(w.buf, tail.buf...)
	return w.buf, nil
}

// resourceBytes is the size of a resource in the last state written: the
// next write (of the same state, a resource or so further on) sizes its
// buffer from it instead of growing it several times over. 512 before the
// first.
var resourceBytes atomic.Int64

// resourcesBuffers keeps the resources buffer of a write for the next
// one: apply writes the state after every resource that finishes, and a
// new buffer each time (10 MB for 1,000 nodes, zeroed) was a tenth of the
// encoding's time and most of its garbage. The buffer never leaves
// MarshalWith (the file is a copy); the pool lets it go when writes stop.
var resourcesBuffers sync.Pool

// resourcesBuffer is an empty buffer for n resources.
func resourcesBuffer(n int) []byte {
	per := resourceBytes.Load()
	if per == 0 {
		per = 512
	}
	size := int(per+per/8)*n + 256
	if b, ok := resourcesBuffers.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

// headSize and tableSize are what the fields before "resources" take,
// near enough that the output is allocated once.
func headSize(c *State) int {
	n := 256 + len(c.DataKey)
	for _, r := range c.Recipients {
		n += len(r) + 8
	}
	for k, v := range c.HostKeys {
		n += len(k) + len(v) + 16
	}
	return n
}

func tableSize(table []shared) int {
	n := 32
	for _, v := range table {
		n += len(v.flat) + 2*bytes.Count(v.flat, []byte{'\n'}) + 96
	}
	return n
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
	// refuses) encodes the same way every time. A state's resources are
	// kept in order (Set, SetMany): sorting them anyway was 5% of a write.
	if !slices.IsSortedFunc(c.Resources, compareAddress) {
		slices.SortStableFunc(c.Resources, compareAddress)
	}
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
