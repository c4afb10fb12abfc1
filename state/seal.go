package state

import (
	"cmp"
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

// UnreadableError is a write that would have to re-encrypt values that
// could not be decrypted (the recipients changed).
type UnreadableError struct {
	Values []string // "ADDRESS.ATTR" or "output.NAME"
	Why    string   // why they did not open (State.UnreadableWhy)
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("the recipients changed, and %d sealed value(s) cannot be re-encrypted to them because they could not be decrypted (%s): %s; give an identity of a current recipient with -identity or EGGO_IDENTITY",
		len(e.Values), listSome(e.Values, 5), e.Why)
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
		return &UnreadableError{Values: *unreadable, Why: c.whyOf(*unreadable)}
	}
	if k.seals() {
		c.Recipients = k.Recipients()
		switch {
		case wk.dk != nil:
			c.DataKey = wk.dk.envelope
		case !hasSealed(c):
			c.DataKey = "" // it holds nothing: a file's data key always holds a value
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
// agreement of its own, so the values are opened on every core. What
// does not open stays sealed, with the reason (UnreadableReasons); whether
// the data key held the values decides whether a write may seal new ones
// under it (trust.go).
func openState(s *State, k *Keyring) {
	jobs := openJobs(s)
	if !k.CanOpen() || len(jobs) == 0 && s.DataKey == "" {
		return
	}
	// A data key no identity opens leaves its values sealed (Unreadable
	// names them), as a value no identity opened always has.
	dk, _ := k.fileDataKey(s.DataKey)
	var wg sync.WaitGroup
	next := make(chan *openJob)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				sealed := s.SealedOutputs[j.name]
				if j.r != nil {
					sealed = j.r.Sealed[j.name]
				}
				j.value, j.legacy, j.err = k.open(j.place, sealed, dk)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	under, failed := placeOpened(s, jobs)
	if dk != nil && dk.key != nil {
		k.noteHeld(s.DataKey, under, failed)
		names := s.Recipients
		if k.seals() {
			names = k.Recipients()
		}
		if slices.Equal(names, s.Recipients) {
			s.keyDistrust = k.distrust(s.DataKey, names)
		}
	}
}

// openJob is one sealed value to open: a resource's attribute (r set) or
// an output.
type openJob struct {
	r      *Resource
	name   string
	place  string
	value  any
	legacy bool // an age file of its own, not under the data key
	err    error
}

func openJobs(s *State) []*openJob {
	var jobs []*openJob
	for i := range s.Resources {
		r := &s.Resources[i]
		for name := range r.Sealed {
			jobs = append(jobs, &openJob{r: r, name: name, place: "resource/" + r.Address + "/" + name})
		}
	}
	for name := range s.SealedOutputs {
		jobs = append(jobs, &openJob{name: name, place: "output/" + name})
	}
	return jobs
}

// placeOpened moves what opened into the plain attributes and outputs and
// records why the rest did not; it counts the values sealed under the
// data key and those of them that failed.
func placeOpened(s *State, jobs []*openJob) (under, failed int) {
	for _, j := range jobs {
		if !j.legacy {
			under++
		}
		if j.err != nil {
			if !j.legacy {
				failed++
			}
			if s.unopened == nil {
				s.unopened = map[string]string{}
			}
			label := "output." + j.name
			if j.r != nil {
				label = j.r.Address + "." + j.name
			}
			s.unopened[label] = j.err.Error()
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
	return under, failed
}

// Unreadable lists the values of s still sealed: those that could not be
// decrypted ("ADDRESS.ATTR", "output.NAME"), sorted; UnreadableReasons
// says why.
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

// UnreadableReasons says why each value Unreadable lists did not open:
// "no identity given", or what went wrong with the identity given
// ("wrong identity: …", "no matching recipient: …", "corrupt envelope:
// …", "MAC failure: …").
func (s *State) UnreadableReasons() map[string]string {
	out := map[string]string{}
	for _, v := range s.Unreadable() {
		out[v] = s.why(v)
	}
	return out
}

func (s *State) why(value string) string { return cmp.Or(s.unopened[value], errNoIdentity.Error()) }

// UnreadableWhy is UnreadableReasons in one line: the reason, when the
// values share one, else each reason with its number of values.
func (s *State) UnreadableWhy() string { return s.whyOf(s.Unreadable()) }

// whyOf is UnreadableWhy of some of the values.
func (s *State) whyOf(values []string) string {
	count := map[string]int{}
	for _, v := range values {
		count[s.why(v)]++
	}
	if len(count) == 1 {
		for why := range count {
			return why
		}
	}
	var parts []string
	for _, why := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", why, count[why]))
	}
	return strings.Join(parts, "; ")
}

// DataKeyDistrusted is why the next write will seal the state's secrets
// under a new data key rather than the file's, though the recipients did
// not change ("" when it will not): see trust.go.
func (s *State) DataKeyDistrusted() string { return s.keyDistrust }

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
