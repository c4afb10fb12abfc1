package engine

import (
	"slices"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// SecretsChange is how an apply changes the encryption of the state's
// secrets: new recipients, or plain values (a state from before
// encryption, or a first secrets block) to seal.
type SecretsChange struct {
	Recipients []string `json:"recipients"` // after the apply
	Added      []string `json:"added,omitempty"`
	Removed    []string `json:"removed,omitempty"`
	Encrypt    int      `json:"encrypt,omitempty"` // plain secret values to seal
}

// HostKeyChange pins a node's SSH host key into the state, or forgets it.
type HostKeyChange struct {
	Node        string `json:"node"`
	Action      string `json:"action"` // "pin" or "forget"
	Fingerprint string `json:"fingerprint"`
	Key         string `json:"key,omitempty"` // the public key pinned
}

// secretsChange compares the state's encryption with the keyring's.
func secretsChange(prior *state.State, kr *state.Keyring) *SecretsChange {
	if prior == nil {
		return nil
	}
	want := kr.Recipients()
	if len(want) == 0 {
		// No secrets block: a sealed state stays sealed to its own
		// recipients (see state.writeKeyring); a plain one stays plain.
		return nil
	}
	plain := prior.PlainSecrets()
	if slices.Equal(prior.Recipients, want) && plain == 0 {
		return nil
	}
	c := &SecretsChange{Recipients: want, Encrypt: plain}
	for _, r := range want {
		if !slices.Contains(prior.Recipients, r) {
			c.Added = append(c.Added, r)
		}
	}
	for _, r := range prior.Recipients {
		if !slices.Contains(want, r) {
			c.Removed = append(c.Removed, r)
		}
	}
	return c
}

// refuseUnreadable stops an apply that would need secrets no identity
// given can open.
func refuseUnreadable(prior *state.State, desc string) error {
	if prior == nil {
		return nil
	}
	u := prior.Unreadable()
	if len(u) == 0 {
		return nil
	}
	return errorf("cannot apply: %d secret value(s) in the state %s could not be decrypted (%s): %s. "+
		"Give the identity of one of the state's recipients (%s) with -identity=FILE or EGGO_IDENTITY=FILE "+
		"(an age identity file or an SSH private key). Nothing was changed.",
		len(u), desc, listSome(u, 4), prior.UnreadableWhy(), listSome(prior.Recipients, 3))
}

func listSome(ss []string, n int) string {
	out := ""
	for i, s := range ss {
		if i == n {
			return out + ", …"
		}
		if i > 0 {
			out += ", "
		}
		out += shortKey(s)
	}
	return out
}

func shortKey(s string) string {
	if len(s) > 48 {
		return s[:45] + "..."
	}
	return s
}

// sealedAttrs maps each address to its attributes still sealed (no
// identity opened them).
func sealedAttrs(prior *state.State) map[string]map[string]bool {
	if prior == nil {
		return nil
	}
	var out map[string]map[string]bool
	for _, r := range prior.Resources {
		if len(r.Sealed) == 0 {
			continue
		}
		if out == nil {
			out = map[string]map[string]bool{}
		}
		m := map[string]bool{}
		for name := range r.Sealed {
			m[name] = true
		}
		out[r.Address] = m
	}
	return out
}

// onlySealedChanged reports whether every attribute st found changed is
// one that could not be compared: sealed in its own record, or carrying a
// reference to a value sealed in another's.
func onlySealedChanged(st *Step, d *resources.Desired, sealed map[string]map[string]bool) bool {
	if len(sealed) == 0 || len(st.Changed) == 0 {
		return false
	}
	suspect := map[string]bool{}
	for name := range sealed[st.Addr] {
		suspect[name] = true
	}
	if d != nil {
		inputSuspect := false
		for name, v := range d.Attrs {
			for _, r := range resources.Refs(resources.Attrs{name: v}) {
				if sealed[r.Addr][r.Attr] {
					suspect[name] = true
					inputSuspect = true
				}
			}
		}
		if inputSuspect {
			// What the kind derives from its inputs (a service's file
			// digests, made from files that hold a key) may differ only
			// because an input could not be read.
			for name := range st.After {
				if _, input := d.Attrs[name]; !input {
					suspect[name] = true
				}
			}
		}
	}
	for _, name := range st.Changed {
		if !suspect[name] {
			return false
		}
	}
	return true
}

// createdOverSealed reports whether a kind plans to create a resource the
// state records with values no identity could open: the kind sees its
// record without them, as if an apply had stopped before they were made.
// The record is complete; the kind cannot tell, so neither can the plan.
func createdOverSealed(st *Step, have *resources.Object, sealed map[string]map[string]bool) bool {
	return st.Action == resources.Create && have != nil && have.Attrs != nil && len(sealed[st.Addr]) > 0
}
