package state

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Sealing is the one seam through which every secret passes on its way
// into and out of the file. On write, each sensitive attribute and output
// is encrypted to the keyring's recipients (field by field, so the rest of
// the file stays readable and diffable); on read, each is opened with the
// keyring's identities. A value no identity opens stays sealed in memory
// and is written back exactly as it was read.

// UnreadableError is a write that would have to re-encrypt values no
// identity could open (the recipients changed).
type UnreadableError struct {
	Values []string // "ADDRESS.ATTR" or "output.NAME"
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("the recipients changed, and %d sealed value(s) cannot be re-encrypted to them because no identity given could decrypt them (%s); give an identity of a current recipient with -identity or EGGO_IDENTITY",
		len(e.Values), listSome(e.Values, 5))
}

func listSome(ss []string, n int) string {
	if len(ss) <= n {
		return strings.Join(ss, ", ")
	}
	return strings.Join(ss[:n], ", ") + fmt.Sprintf(" and %d more", len(ss)-n)
}

// writeKeyring is the keyring a write of s seals with: k, or — when k names
// no recipients but s was sealed — k's identities with s's recipients, so
// a state once encrypted is never written back in plain text because a
// configuration forgot its secrets block.
func writeKeyring(k *Keyring, s *State) (*Keyring, error) {
	if k == nil || k.seals() || len(s.Recipients) == 0 {
		return k, nil
	}
	sticky, err := NewKeyring(s.Recipients, k.identities)
	if err != nil {
		return nil, fmt.Errorf("the state's recipients: %w", err)
	}
	sticky.cache = k.cache
	return sticky, nil
}

// sealState turns c (a shallow canonical copy of the caller's state) into
// what the file holds. k nil leaves every value as it is (Marshal without
// a keyring: tests, plan hashes).
func sealState(c *State, k *Keyring, unreadable *[]string) error {
	if k == nil {
		return nil
	}
	changed := !slices.Equal(c.Recipients, k.Recipients())
	wk := &writeKey{k: k, envelope: c.DataKey, changed: changed}
	for i := range c.Resources {
		r := &c.Resources[i]
		sealed, err := sealValues(k, wk, "resource/"+r.Address+"/", r.Sensitive, r.Attributes, r.Sealed, r.Address+".", unreadable)
		if err != nil {
			return fmt.Errorf("resource %s: %w", r.Address, err)
		}
		r.Attributes, r.Sealed = sealed.plain, sealed.sealed
	}
	sealed, err := sealValues(k, wk, "output/", c.SensitiveOutputs, c.Outputs, c.SealedOutputs, "output.", unreadable)
	if err != nil {
		return err
	}
	c.Outputs, c.SealedOutputs = sealed.plain, sealed.sealed
	if len(*unreadable) > 0 && changed {
		return &UnreadableError{Values: *unreadable}
	}
	if k.seals() {
		c.Recipients = k.Recipients()
		if wk.dk != nil {
			c.DataKey = wk.dk.envelope
		}
	} else if !hasSealed(c) {
		c.Recipients, c.DataKey = nil, ""
	}
	return nil
}

// writeKey is the data key of one write, chosen when the first value is
// sealed: a state with nothing to seal gets none.
type writeKey struct {
	k        *Keyring
	envelope string // the file's data_key
	changed  bool   // the recipients changed
	dk       *dataKey
}

func (w *writeKey) get() (*dataKey, error) {
	if w.dk == nil {
		dk, err := w.k.writeDataKey(w.envelope, w.changed)
		if err != nil {
			return nil, err
		}
		w.dk = dk
	}
	return w.dk, nil
}

type sealedValues struct {
	plain  map[string]any
	sealed map[string]string
}

// sealValues moves the sensitive names of plain into sealed, encrypted
// under wk's data key (copying the maps: they belong to the caller).
// Values already sealed (unopened) stay as they are; they are listed in
// unreadable.
func sealValues(k *Keyring, wk *writeKey, place string, sensitive []string, plain map[string]any, sealed map[string]string, label string, unreadable *[]string) (sealedValues, error) {
	out := sealedValues{plain: plain, sealed: sealed}
	for _, name := range slices.Sorted(maps.Keys(sealed)) {
		*unreadable = append(*unreadable, label+name)
	}
	if !k.seals() {
		return out, nil
	}
	var copied bool
	for _, name := range sensitive {
		v, ok := plain[name]
		if !ok {
			continue
		}
		if !copied {
			out.plain = maps.Clone(plain)
			out.sealed = maps.Clone(sealed)
			if out.sealed == nil {
				out.sealed = map[string]string{}
			}
			copied = true
		}
		dk, err := wk.get()
		if err != nil {
			return out, fmt.Errorf("encrypting %s: %w", name, err)
		}
		ct, err := k.seal(dk, place+name, v)
		if err != nil {
			return out, fmt.Errorf("encrypting %s: %w", name, err)
		}
		delete(out.plain, name)
		out.sealed[name] = ct
	}
	return out, nil
}

func hasSealed(s *State) bool {
	if len(s.SealedOutputs) > 0 {
		return true
	}
	for _, r := range s.Resources {
		if len(r.Sealed) > 0 {
			return true
		}
	}
	return false
}

// openState opens every sealed value of s it can, in place: under the
// data key, opened once; a value sealed before format 4 costs a key
// agreement of its own, so the values are opened on every core.
func openState(s *State, k *Keyring) {
	type job struct {
		r     *Resource // nil for an output
		name  string
		place string
		value any
		ok    bool
	}
	var jobs []*job
	for i := range s.Resources {
		r := &s.Resources[i]
		for name := range r.Sealed {
			jobs = append(jobs, &job{r: r, name: name, place: "resource/" + r.Address + "/" + name})
		}
	}
	for name := range s.SealedOutputs {
		jobs = append(jobs, &job{name: name, place: "output/" + name})
	}
	if len(jobs) == 0 || !k.CanOpen() {
		return
	}
	// A data key no identity opens leaves its values sealed (Unreadable
	// names them), as a value no identity opened always has.
	dk, _ := k.fileDataKey(s.DataKey)
	var wg sync.WaitGroup
	next := make(chan *job)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				sealed := s.SealedOutputs[j.name]
				if j.r != nil {
					sealed = j.r.Sealed[j.name]
				}
				v, err := k.open(j.place, sealed, dk)
				j.value, j.ok = v, err == nil
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	for _, j := range jobs {
		if !j.ok {
			continue
		}
		if j.r == nil {
			if s.Outputs == nil {
				s.Outputs = map[string]any{}
			}
			s.Outputs[j.name] = j.value
			delete(s.SealedOutputs, j.name)
			continue
		}
		if j.r.Attributes == nil {
			j.r.Attributes = map[string]any{}
		}
		j.r.Attributes[j.name] = j.value
		delete(j.r.Sealed, j.name)
	}
	for i := range s.Resources {
		if len(s.Resources[i].Sealed) == 0 {
			s.Resources[i].Sealed = nil
		}
	}
	if len(s.SealedOutputs) == 0 {
		s.SealedOutputs = nil
	}
}

// Unreadable lists the values of s still sealed: those no identity given
// could decrypt ("ADDRESS.ATTR", "output.NAME"), sorted.
func (s *State) Unreadable() []string {
	var out []string
	for _, r := range s.Resources {
		for _, name := range slices.Sorted(maps.Keys(r.Sealed)) {
			out = append(out, r.Address+"."+name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.SealedOutputs)) {
		out = append(out, "output."+name)
	}
	slices.Sort(out)
	return out
}

// PlainSecrets counts the sensitive values the file held in plain text
// when s was read (which a write with recipients will encrypt).
func (s *State) PlainSecrets() int { return s.plainOnRead }

// countPlain counts the sensitive values s holds in plain text.
func countPlain(s *State) int {
	n := 0
	for _, r := range s.Resources {
		for _, name := range r.Sensitive {
			if _, ok := r.Attributes[name]; ok {
				n++
			}
		}
	}
	for _, name := range s.SensitiveOutputs {
		if _, ok := s.Outputs[name]; ok {
			n++
		}
	}
	return n
}
