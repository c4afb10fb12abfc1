package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"golang.org/x/crypto/ssh"
)

// Whoever can write the state file (a commit to its repository) need not
// be a recipient. Such a writer can put a data_key of their own in the
// file, sealed to the recipients and to themselves: a recipient opens it
// like the real one, and every secret sealed under it afterwards would be
// theirs to read. So a write seals new values under the file's data key
// only when this process has seen that key hold the file's secrets (every
// value sealed under it opened, and there was one), and its envelope is
// sealed to exactly the state's recipients. Otherwise it makes a new data
// key; the plan says why (State.DataKeyDistrusted).
//
// An X25519 stanza does not say whom it is for: the envelope's check is
// of its number of stanzas, their types, and the SSH keys' tags. That is
// enough to refuse an envelope with a recipient added; one with a
// recipient swapped for another of the same type shows only to the
// recipient swapped out (it no longer opens for them), and the values
// under a key the writer made cannot open under it unless the writer
// sealed them, and then they are not the secrets eggo made.

// distrust says why a write must not seal new values under envelope for
// the recipients names, or "" when it may.
func (k *Keyring) distrust(envelope string, names []string) string {
	k.cache.mu.Lock()
	cur := k.cache.current
	why, read := k.cache.held[envelope]
	k.cache.mu.Unlock()
	if cur != nil && cur.envelope == envelope {
		return "" // made by this process
	}
	if mismatch := envelopeMismatch(envelope, names); mismatch != "" {
		return mismatch
	}
	if !read {
		return heldReason(0, 0)
	}
	return why
}

// noteHeld records, once the values of a state were opened, whether its
// data key held them: every value sealed under it opened, and there was
// at least one.
func (k *Keyring) noteHeld(envelope string, under, failed int) {
	k.cache.mu.Lock()
	k.cache.held[envelope] = heldReason(under, failed)
	k.cache.mu.Unlock()
}

// heldReason is why a data key is not known to hold a state's values, of
// which under were sealed under it and failed did not open, or "".
func heldReason(under, failed int) string {
	switch {
	case under == 0:
		return "no value in the state is sealed under it, so nothing shows it is the key eggo sealed the secrets with"
	case failed > 0:
		return fmt.Sprintf("%d of the %d value(s) sealed under it do not open with it", failed, under)
	}
	return ""
}

// envelopeMismatch compares the stanzas of an envelope (an age file, in
// base64) with those a data key sealed to names would have: "" when they
// are alike.
func envelopeMismatch(envelope string, names []string) string {
	got, err := envelopeStanzas(envelope)
	if err != nil {
		return "its envelope is corrupt: " + err.Error()
	}
	want := make([]string, 0, len(names))
	for _, n := range names {
		want = append(want, expectedStanza(n))
	}
	slices.Sort(got)
	slices.Sort(want)
	if slices.Equal(got, want) {
		return ""
	}
	return fmt.Sprintf("its envelope is sealed to %s, but the state's recipients are %s", describeStanzas(got), describeStanzas(want))
}

// stanzaRecorder is an identity that opens nothing and keeps the stanzas
// it was shown: age's own parser reads the envelope's header, without a
// key agreement.
type stanzaRecorder struct{ stanzas []*age.Stanza }

func (r *stanzaRecorder) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	r.stanzas = stanzas
	return nil, age.ErrIncorrectIdentity
}

// envelopeStanzas lists an envelope's recipient stanzas as "TYPE" (X25519,
// mlkem768x25519) or "TYPE TAG" (ssh-ed25519, ssh-rsa: the tag names the
// SSH key).
func envelopeStanzas(envelope string) ([]string, error) {
	raw, err := base64.StdEncoding.DecodeString(envelope)
	if err != nil {
		return nil, fmt.Errorf("not base64: %v", err)
	}
	rec := &stanzaRecorder{}
	_, err = age.Decrypt(bytes.NewReader(raw), rec)
	if _, ok := errors.AsType[*age.NoIdentityMatchError](err); !ok || len(rec.stanzas) == 0 {
		return nil, fmt.Errorf("not an age file: %v", err)
	}
	out := make([]string, 0, len(rec.stanzas))
	for _, s := range rec.stanzas {
		if strings.HasPrefix(s.Type, "ssh-") && len(s.Args) > 0 {
			out = append(out, s.Type+" "+s.Args[0])
		} else {
			out = append(out, s.Type)
		}
	}
	return out, nil
}

// expectedStanza is the stanza a recipient (as the state writes it) gets.
func expectedStanza(name string) string {
	switch {
	case strings.HasPrefix(name, "age1pq1"):
		return "mlkem768x25519"
	case strings.HasPrefix(name, "age1"):
		return "X25519"
	}
	pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(name))
	if err != nil {
		return name // validateRead refused it; never a stanza
	}
	h := sha256.Sum256(pk.Marshal())
	return pk.Type() + " " + base64.RawStdEncoding.EncodeToString(h[:4])
}

// describeStanzas: "3 recipients (X25519 ×2, ssh-ed25519 AbCd1A)".
func describeStanzas(stanzas []string) string {
	var parts []string
	for i := 0; i < len(stanzas); {
		j := i
		for j < len(stanzas) && stanzas[j] == stanzas[i] {
			j++
		}
		part := stanzas[i]
		if j-i > 1 {
			part += fmt.Sprintf(" ×%d", j-i)
		}
		parts = append(parts, part)
		i = j
	}
	return fmt.Sprintf("%d recipient(s) (%s)", len(stanzas), strings.Join(parts, ", "))
}

// openFailure says why an age file (the data key's envelope, or a value
// sealed before format 4) did not open with identities, for what ("the
// data key", "the value"): the reasons are distinct, so that "no
// identity given" is said only when none was.
func openFailure(what string, err error, identities []age.Identity) error {
	if errors.Is(err, errNoIdentity) {
		return err
	}
	if nm, ok := errors.AsType[*age.NoIdentityMatchError](err); ok {
		types := identityTypes(identities)
		for _, t := range nm.StanzaTypes {
			if types[t] || types[""] {
				return fmt.Errorf("wrong identity: the identity given is not one of the recipients %s is sealed to", what)
			}
		}
		return fmt.Errorf("no matching recipient: %s is sealed to %s keys only, and none of the identities given is one", what, strings.Join(slices.Compact(slices.Sorted(slices.Values(nm.StanzaTypes))), ", "))
	}
	if err != nil && strings.Contains(err.Error(), "bad header MAC") {
		return fmt.Errorf("MAC failure: %s's envelope fails its header MAC (altered)", what)
	}
	return fmt.Errorf("corrupt envelope: %s: %v", what, err)
}

// identityTypes are the stanza types identities open ("" for an identity
// of a type not known here).
func identityTypes(identities []age.Identity) map[string]bool {
	out := map[string]bool{}
	for _, id := range identities {
		switch id.(type) {
		case *age.X25519Identity:
			out["X25519"] = true
		case *age.HybridIdentity:
			out["mlkem768x25519"] = true
		case *agessh.Ed25519Identity:
			out["ssh-ed25519"] = true
		case *agessh.RSAIdentity:
			out["ssh-rsa"] = true
		default:
			out[""] = true
		}
	}
	return out
}
