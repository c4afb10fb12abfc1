package state

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"

	"filippo.io/age"
)

// injectDataKey replaces the file's data_key with one sealed to
// recipients, a key whoever made it holds; without values, the file's
// sealed values and their marks are dropped too (the secrets then look
// not yet made, and the next apply makes new ones).
func injectDataKey(t *testing.T, path string, withValues bool, recipients ...operator) {
	t.Helper()
	var rs []age.Recipient
	for _, o := range recipients {
		r, err := ParseRecipient(o.recipient)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	dk, err := newDataKey(rs, nil)
	if err != nil {
		t.Fatal(err)
	}
	file, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	file.DataKey = dk.envelope
	if !withValues {
		for i := range file.Resources {
			file.Resources[i].Sealed, file.Resources[i].Sensitive = nil, nil
		}
		file.SealedOutputs, file.SensitiveOutputs = nil, nil
	}
	if err := NewStore(path).Write(file); err != nil {
		t.Fatal(err)
	}
}

// A writer of the file who is no recipient cannot have the secrets sealed
// under a key they hold: a data_key sealed to the recipients and to an
// outsider is not adopted, whether the values it replaced were left (they
// do not open under it) or dropped (nothing shows it held them). The next
// write makes a new data key, and the outsider opens nothing.
func TestInjectedDataKeyIsNotAdopted(t *testing.T) {
	for _, withValues := range []bool{true, false} {
		name := map[bool]string{true: "values left", false: "values dropped"}[withValues]
		t.Run(name, func(t *testing.T) {
			alice, eve := ageOperator(t), ageOperator(t)
			path, _ := writeSealed(t, keyring(t, []operator{alice}), secretState())
			injectDataKey(t, path, withValues, alice, eve)

			st := NewStore(path)
			st.SetKeyring(keyring(t, []operator{alice}, alice))
			s, err := st.Read()
			if err != nil {
				t.Fatal(err)
			}
			why := s.DataKeyDistrusted()
			if !strings.Contains(why, "sealed to 2 recipient(s) (X25519 ×2), but the state's recipients are 1 recipient(s) (X25519)") {
				t.Errorf("DataKeyDistrusted = %q, want the envelope's extra recipient named", why)
			}
			// The apply makes the secrets again (or keeps those it opened)
			// and a new one.
			ca, _ := s.Lookup("pki.cluster_ca")
			ca.Attributes["key_pem"], ca.Sensitive = "regenerated-key", []string{"key_pem"}
			s.Set(Resource{Address: "cert.new", Kind: "cert", Attributes: map[string]any{"key": "new-secret-key"}, Sensitive: []string{"key"}})
			if err := st.Write(s); err != nil {
				t.Fatal(err)
			}

			eves := readWith(t, path, keyring(t, nil, eve))
			for _, r := range eves.Resources {
				for _, name := range r.Sensitive {
					if _, opened := r.Attributes[name]; opened {
						t.Errorf("the outsider opens %s.%s", r.Address, name)
					}
				}
			}
			if len(eves.Unreadable()) < 2 {
				t.Errorf("the outsider's read: unreadable %v, want every secret", eves.Unreadable())
			}
			alices := readWith(t, path, keyring(t, nil, alice))
			if n, _ := alices.Lookup("cert.new"); n.Attributes["key"] != "new-secret-key" {
				t.Errorf("alice cannot open the new secret: %v", alices.UnreadableReasons())
			}
		})
	}
}

// A data key this state's values opened under, sealed to its recipients,
// is kept by another process's write: unchanged values keep their
// ciphertext, and the file does not change.
func TestDataKeyThatHoldsTheValuesIsKept(t *testing.T) {
	alice, bob := ageOperator(t), sshOperator(t)
	path, before := writeSealed(t, keyring(t, []operator{alice, bob}), secretState())
	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{alice, bob}, bob))
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	if why := s.DataKeyDistrusted(); why != "" {
		t.Fatalf("the state's own data key is distrusted: %s", why)
	}
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a write of the unchanged state by another process changed the file")
	}
}

// Every failure to open says its real reason; "no identity given" only
// when none was.
func TestOpenFailuresSayWhy(t *testing.T) {
	alice, bob, carol := ageOperator(t), ageOperator(t), sshOperator(t)
	path, data := writeSealed(t, keyring(t, []operator{alice}), secretState())
	file, err := Decode(data, path)
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(edit func(*State)) string {
		c := file.Copy()
		edit(c)
		p := writeFile(t, t.TempDir(), "eggo.state", string(Encode(c)))
		return p
	}
	tamperedValue := rewrite(func(s *State) {
		ca := &s.Resources[indexOf(s, "pki.cluster_ca")]
		raw, _ := base64.StdEncoding.DecodeString(ca.Sealed["key_pem"])
		raw[len(raw)-1] ^= 1
		ca.Sealed["key_pem"] = base64.StdEncoding.EncodeToString(raw)
	})
	corruptKey := rewrite(func(s *State) { s.DataKey = base64.StdEncoding.EncodeToString([]byte("not an age file")) })
	tamperedKey := rewrite(func(s *State) {
		raw, _ := base64.StdEncoding.DecodeString(s.DataKey)
		i := bytes.Index(raw, []byte("\n--- ")) + 5
		raw[i] = map[bool]byte{true: 'B', false: 'A'}[raw[i] == 'A'] // the header's MAC, in base64
		s.DataKey = base64.StdEncoding.EncodeToString(raw)
	})
	for _, c := range []struct {
		name, path string
		k          *Keyring
		value      string // the value to check; "" for every one
		want       string
	}{
		{"no identity", path, keyring(t, nil), "", "no identity given"},
		{"wrong identity", path, keyring(t, nil, bob), "", "wrong identity: the identity given is not one of the recipients the data key is sealed to"},
		{"no matching recipient", path, keyring(t, nil, carol), "", "no matching recipient: the data key is sealed to X25519 keys only, and none of the identities given is one"},
		{"value altered", tamperedValue, keyring(t, nil, alice), "pki.cluster_ca.key_pem", "MAC failure: it does not verify under the state's data key"},
		{"envelope corrupt", corruptKey, keyring(t, nil, alice), "", "corrupt envelope: the data key: failed to read header"},
		{"envelope's MAC", tamperedKey, keyring(t, nil, alice), "", "MAC failure: the data key's envelope fails its header MAC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := readWith(t, c.path, c.k)
			reasons := s.UnreadableReasons()
			if len(reasons) == 0 {
				t.Fatal("every value opened")
			}
			for v, why := range reasons {
				if c.value != "" && v != c.value {
					t.Errorf("%s did not open (%s); only %s was altered", v, why, c.value)
					continue
				}
				if !strings.HasPrefix(why, c.want) {
					t.Errorf("%s: %q, want %q", v, why, c.want)
				}
			}
			if c.want != "no identity given" && strings.Contains(s.UnreadableWhy(), "no identity given") {
				t.Errorf("an identity was given, and the reason says none was: %s", s.UnreadableWhy())
			}
		})
	}

	// A write that must seal a new value, or re-encrypt to new recipients,
	// says it too.
	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{alice}, bob))
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	s.Set(Resource{Address: "cert.new", Kind: "cert", Attributes: map[string]any{"key": "k"}, Sensitive: []string{"key"}})
	if err := st.Write(s); !errors.Is(err, errDataKeyUnopened) || !strings.Contains(err.Error(), "wrong identity") {
		t.Errorf("a new secret under a data key a wrong identity could not open: %v", err)
	}
	st.SetKeyring(keyring(t, []operator{bob}, bob))
	var unreadable *UnreadableError
	if err := st.Write(s); !errors.As(err, &unreadable) || !strings.Contains(err.Error(), "wrong identity") || strings.Contains(err.Error(), "no identity given") {
		t.Errorf("re-encrypting values a wrong identity could not open: %v", err)
	}
}
