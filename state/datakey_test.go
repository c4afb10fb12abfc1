package state

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"filippo.io/age"
)

// countingIdentity counts the key agreements an identity is asked for.
type countingIdentity struct {
	age.Identity
	unwraps *atomic.Int64
}

func (c countingIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	c.unwraps.Add(1)
	return c.Identity.Unwrap(stanzas)
}

func countingKeyring(t *testing.T, recipients []operator, who operator) (*Keyring, *atomic.Int64) {
	t.Helper()
	ids, err := ReadIdentities(who.idPath)
	if err != nil {
		t.Fatal(err)
	}
	n := &atomic.Int64{}
	var names []string
	for _, r := range recipients {
		names = append(names, r.recipient)
	}
	k, err := NewKeyring(names, []age.Identity{countingIdentity{ids[0], n}})
	if err != nil {
		t.Fatal(err)
	}
	return k, n
}

// manySecrets is secretState with n more sealed keys, one per certificate.
func manySecrets(n int) *State {
	s := secretState()
	for i := range n {
		s.Resources = append(s.Resources, Resource{Address: "cert.kubelet[\"w" + string(rune('a'+i)) + "\"]", Kind: "cert",
			Attributes: map[string]any{"key": "-----BEGIN PRIVATE KEY-----\nkey " + string(rune('a'+i)) + "\n-----END PRIVATE KEY-----\n"},
			Sensitive:  []string{"key"}})
	}
	return s
}

// One data key per state: the file holds it once, sealed to the
// recipients, and reading the state opens it once, however many values
// are sealed under it.
func TestSecretsSealedUnderOneDataKey(t *testing.T) {
	alice := ageOperator(t)
	path, data := writeSealed(t, keyring(t, []operator{alice}), manySecrets(8))
	file, err := Decode(data, path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(file.DataKey)
	if err != nil || !isAgeFile(raw) {
		t.Fatalf("data_key is not an age file sealed to the recipients (%v)", err)
	}
	sealed := 0
	for _, r := range file.Resources {
		for name, v := range r.Sealed {
			sealed++
			raw, err := base64.StdEncoding.DecodeString(v)
			if err != nil || isAgeFile(raw) {
				t.Errorf("%s.%s is sealed as an age file of its own, not under the data key", r.Address, name)
			}
			// Nonce and tag only: an age file of its own added ~330 bytes.
			if plain := len(`"-----BEGIN PRIVATE KEY-----\nkey a\n-----END PRIVATE KEY-----\n"`); name == "key" && len(raw) > plain+40 {
				t.Errorf("%s.%s: %d bytes sealed for %d of plain text", r.Address, name, len(raw), plain)
			}
		}
	}
	if sealed != 9 {
		t.Fatalf("%d values sealed, want 9", sealed)
	}
	k, unwraps := countingKeyring(t, nil, alice)
	s := readWith(t, path, k)
	if u := s.Unreadable(); len(u) != 0 {
		t.Fatalf("unreadable: %v", u)
	}
	if got, _ := s.Lookup(`cert.kubelet["wc"]`); !strings.Contains(got.Attributes["key"].(string), "key c") {
		t.Errorf("wc's key read back as %v", got.Attributes["key"])
	}
	if n := unwraps.Load(); n != 1 {
		t.Errorf("%d key agreements to read 10 sealed values, want 1 (the data key)", n)
	}
	readWith(t, path, k)
	if n := unwraps.Load(); n != 1 {
		t.Errorf("a second read of the same state made %d key agreements in all, want the data key opened once per process", n)
	}
}

// A sealed value is bound to its place: moved to another attribute or
// resource in the file, it does not open there.
func TestSealedValueMovedDoesNotOpen(t *testing.T) {
	alice := ageOperator(t)
	path, _ := writeSealed(t, keyring(t, []operator{alice}), manySecrets(2))
	file, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := file.Resources[indexOf(file, `cert.kubelet["wa"]`)], file.Resources[indexOf(file, `cert.kubelet["wb"]`)]
	a.Sealed["key"], b.Sealed["key"] = b.Sealed["key"], a.Sealed["key"]
	st := NewStore(path)
	if err := st.Write(file); err != nil {
		t.Fatal(err)
	}
	s := readWith(t, path, keyring(t, nil, alice))
	want := []string{`cert.kubelet["wa"].key`, `cert.kubelet["wb"].key`}
	if got := s.Unreadable(); !slices.Equal(got, want) {
		t.Errorf("after swapping two sealed values: unreadable %v, want %v", got, want)
	}
	if ca, _ := s.Lookup("pki.cluster_ca"); ca.Attributes["key_pem"] != sampleKey {
		t.Error("a value left in its place no longer opens")
	}
}

func indexOf(s *State, addr string) int {
	for i, r := range s.Resources {
		if r.Address == addr {
			return i
		}
	}
	panic(addr)
}

// A state sealed before format 4 (each value an age file of its own)
// opens, and the next write with an identity seals its values under one
// data key.
func TestValuesSealedBeforeTheDataKeyOpenAndMove(t *testing.T) {
	alice := ageOperator(t)
	s := secretState()
	recipient, err := ParseRecipient(alice.recipient)
	if err != nil {
		t.Fatal(err)
	}
	ageFile := func(plaintext string) string {
		var buf bytes.Buffer
		w, _ := age.Encrypt(&buf, recipient)
		w.Write([]byte(plaintext))
		w.Close()
		return base64.StdEncoding.EncodeToString(buf.Bytes())
	}
	ca := &s.Resources[indexOf(s, "pki.cluster_ca")]
	delete(ca.Attributes, "key_pem")
	ca.Sealed = map[string]string{"key_pem": ageFile(`"` + sampleKey + `"`)}
	delete(s.Outputs, "admin_token")
	s.SealedOutputs = map[string]string{"admin_token": ageFile(`"tok-0123456789abcdef"`)}
	s.Recipients = []string{alice.recipient}
	v3 := strings.Replace(string(Encode(s)), `"format_version": 4`, `"format_version": 3`, 1)
	v3 = strings.ReplaceAll(v3, "\t", "  ")
	path := filepath.Join(t.TempDir(), "eggo.state")
	if err := os.WriteFile(path, []byte(v3), 0o600); err != nil {
		t.Fatal(err)
	}

	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{alice}, alice))
	read, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	if rca, _ := read.Lookup("pki.cluster_ca"); rca.Attributes["key_pem"] != sampleKey || read.Outputs["admin_token"] != "tok-0123456789abcdef" {
		t.Fatalf("values sealed as age files did not open: %v %v", rca.Attributes["key_pem"], read.Outputs["admin_token"])
	}
	if err := st.Write(read); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	file, err := Decode(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if file.DataKey == "" {
		t.Fatal("written again with an identity, the state has no data key")
	}
	for _, v := range []string{file.Resources[indexOf(file, "pki.cluster_ca")].Sealed["key_pem"], file.SealedOutputs["admin_token"]} {
		if raw, _ := base64.StdEncoding.DecodeString(v); isAgeFile(raw) {
			t.Error("a value is still an age file of its own after a write with an identity")
		}
	}
	if u := readWith(t, path, keyring(t, nil, alice)).Unreadable(); len(u) != 0 {
		t.Errorf("unreadable after the move: %v", u)
	}
}

// Without an identity, a data key cannot be opened: the values under it
// are written back as they are, and a new secret is refused rather than
// lost or written in plain text.
func TestNewSecretUnderAnUnopenedDataKeyRefused(t *testing.T) {
	alice := ageOperator(t)
	path, before := writeSealed(t, keyring(t, []operator{alice}), secretState())
	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{alice}))
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	s.Resources = append(s.Resources, Resource{Address: "cert.new", Kind: "cert",
		Attributes: map[string]any{"key": "new-secret-key"}, Sensitive: []string{"key"}})
	err = st.Write(s)
	if !errors.Is(err, errDataKeyUnopened) || !strings.Contains(err.Error(), "cert.new") {
		t.Fatalf("write of a new secret without an identity: %v, want errDataKeyUnopened naming cert.new", err)
	}
	if strings.Contains(err.Error(), "new-secret-key") {
		t.Fatal("the error holds the secret")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the refused write changed the file")
	}
}

// New recipients get a new data key; the old one opens nothing written
// after.
func TestChangedRecipientsGetANewDataKey(t *testing.T) {
	alice, bob := ageOperator(t), ageOperator(t)
	path, first := writeSealed(t, keyring(t, []operator{alice}), secretState())
	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{alice, bob}, alice))
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	one, _ := Decode(first, "first")
	two, _ := Decode(second, "second")
	if one.DataKey == two.DataKey || two.DataKey == "" {
		t.Fatal("the recipients changed and the data key did not")
	}
	if u := readWith(t, path, keyring(t, nil, bob)).Unreadable(); len(u) != 0 {
		t.Errorf("bob, a new recipient, cannot read: %v", u)
	}
}
