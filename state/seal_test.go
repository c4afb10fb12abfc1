package state

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"filippo.io/age"
	"golang.org/x/crypto/ssh"
)

// operator is one person's key pair, as an age identity file or an SSH key.
type operator struct {
	recipient string // public key, as written in the configuration
	idPath    string // identity file
}

func ageOperator(t *testing.T) operator {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "age.key")
	if err := os.WriteFile(path, []byte("# created: test\n"+id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return operator{recipient: id.Recipient().String(), idPath: path}
}

func sshOperator(t *testing.T) operator {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "ops@example")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, _ := ssh.NewPublicKey(pub)
	return operator{recipient: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))) + " ops@example", idPath: path}
}

func keyring(t *testing.T, recipients []operator, identities ...operator) *Keyring {
	t.Helper()
	var names []string
	for _, r := range recipients {
		names = append(names, r.recipient)
	}
	var ids []age.Identity
	for _, o := range identities {
		got, err := ReadIdentities(o.idPath)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got...)
	}
	k, err := NewKeyring(names, ids)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// secretState has a key in a resource and a sensitive output.
func secretState() *State {
	s := sampleState()
	s.Outputs["admin_token"] = "tok-0123456789abcdef"
	s.SensitiveOutputs = []string{"admin_token"}
	return s
}

const sampleKey = "not-a-real-key" // pki.cluster_ca's key_pem in sampleState

func writeSealed(t *testing.T, k *Keyring, s *State) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "eggo.state")
	st := NewStore(path)
	st.SetKeyring(k)
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	return path, data
}

func readWith(t *testing.T, path string, k *Keyring) *State {
	t.Helper()
	s, err := ReadWith(path, k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSecretsSealedFieldByField(t *testing.T) {
	alice, bob := ageOperator(t), sshOperator(t)
	_, data := writeSealed(t, keyring(t, []operator{alice, bob}), secretState())
	text := string(data)
	for _, secret := range []string{sampleKey, "tok-0123456789abcdef"} {
		if strings.Contains(text, secret) {
			t.Fatalf("the file holds the secret %q in plain text:\n%s", secret, text)
		}
	}
	// The rest stays readable.
	for _, plain := range []string{`"cert_pem": "-----BEGIN CERTIFICATE-----`, `"api_endpoint": "https://10.77.0.10:6443"`, `"sealed": {`, `"key_pem": "`, `"sealed_outputs": {`, `"admin_token": "`, alice.recipient} {
		if !strings.Contains(text, plain) {
			t.Errorf("file lacks %q:\n%s", plain, text)
		}
	}
	// The SSH recipient is recorded without its comment.
	if strings.Contains(text, "ops@example") {
		t.Errorf("recipient comment recorded:\n%s", text)
	}
}

// Each recipient's identity opens every secret; any other identity none.
func TestSealedStateOpensWithEachRecipientOnly(t *testing.T) {
	alice, bob, mallory := ageOperator(t), sshOperator(t), ageOperator(t)
	path, _ := writeSealed(t, keyring(t, []operator{alice, bob}), secretState())
	for _, who := range []struct {
		name string
		op   operator
	}{{"age identity", alice}, {"ssh key", bob}} {
		s := readWith(t, path, keyring(t, nil, who.op))
		ca, _ := s.Lookup("pki.cluster_ca")
		if ca.Attributes["key_pem"] != sampleKey || s.Outputs["admin_token"] != "tok-0123456789abcdef" {
			t.Errorf("%s: secrets not opened: key=%v token=%v", who.name, ca.Attributes["key_pem"], s.Outputs["admin_token"])
		}
		if u := s.Unreadable(); len(u) != 0 {
			t.Errorf("%s: unreadable %v", who.name, u)
		}
	}
	for _, k := range []*Keyring{keyring(t, nil, mallory), keyring(t, nil), nil} {
		s := readWith(t, path, k)
		ca, _ := s.Lookup("pki.cluster_ca")
		if _, ok := ca.Attributes["key_pem"]; ok {
			t.Fatal("a non-recipient opened the key")
		}
		want := []string{"output.admin_token", "pki.cluster_ca.key_pem"}
		if got := s.Unreadable(); !slices.Equal(got, want) {
			t.Errorf("Unreadable = %v, want %v", got, want)
		}
		if ca.Attributes["cert_pem"] == nil {
			t.Error("the non-secret attributes must stay readable")
		}
	}
}

// A write of unchanged values keeps their ciphertexts: no diff in git.
func TestUnchangedSecretsKeepTheirCiphertext(t *testing.T) {
	alice := ageOperator(t)
	path, first := writeSealed(t, keyring(t, []operator{alice}), secretState())

	// Read back with the identity, write again in another run.
	k := keyring(t, []operator{alice}, alice)
	st := NewStore(path)
	st.SetKeyring(k)
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	s.Serial++
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if strings.Replace(string(first), `"serial": 7`, `"serial": 8`, 1) != string(second) {
		t.Errorf("rewrite changed more than the serial:\n%s\n---\n%s", first, second)
	}

	// Without an identity the sealed values are written back verbatim.
	st2 := NewStore(path)
	st2.SetKeyring(keyring(t, []operator{alice}))
	s2, err := st2.Read()
	if err != nil {
		t.Fatal(err)
	}
	s2.Serial++
	if err := st2.Write(s2); err != nil {
		t.Fatal(err)
	}
	third, _ := os.ReadFile(path)
	if strings.Replace(string(second), `"serial": 8`, `"serial": 9`, 1) != string(third) {
		t.Errorf("rewrite without identity changed sealed values")
	}
}

func TestChangedRecipientsReencrypt(t *testing.T) {
	alice, bob := ageOperator(t), sshOperator(t)
	path, _ := writeSealed(t, keyring(t, []operator{alice}), secretState())

	// Without an identity, new recipients cannot be served.
	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{bob}))
	s, _ := st.Read()
	err := st.Write(s)
	var unreadable *UnreadableError
	if !errors.As(err, &unreadable) || len(unreadable.Values) != 2 {
		t.Fatalf("write to new recipients without identity: %v, want an UnreadableError for 2 values", err)
	}
	if strings.Contains(err.Error(), sampleKey) {
		t.Fatal("error leaks the secret")
	}

	// With alice's identity, the state moves to bob alone.
	st.SetKeyring(keyring(t, []operator{bob}, alice))
	s, _ = st.Read()
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	if got := readWith(t, path, keyring(t, nil, alice)).Unreadable(); len(got) != 2 {
		t.Errorf("alice still reads the re-encrypted state (unreadable: %v)", got)
	}
	bobs := readWith(t, path, keyring(t, nil, bob))
	if len(bobs.Unreadable()) != 0 || !slices.Equal(bobs.Recipients, []string{normalizeRecipient(bob.recipient)}) {
		t.Errorf("bob: unreadable %v, recipients %v", bobs.Unreadable(), bobs.Recipients)
	}
}

// A configuration without recipients does not decrypt a sealed state into
// plain text: the state's own recipients keep being used.
func TestSealedStateStaysSealed(t *testing.T) {
	alice := ageOperator(t)
	path, _ := writeSealed(t, keyring(t, []operator{alice}), secretState())
	st := NewStore(path)
	st.SetKeyring(keyring(t, nil, alice))
	s, _ := st.Read()
	s.Resources[0].Attributes["note"] = "changed"
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), sampleKey) || !strings.Contains(string(data), alice.recipient) {
		t.Errorf("state lost its encryption:\n%s", data)
	}
}

// A plain (format 1) state is sealed by the first write with recipients.
func TestPlainStateSealedOnWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eggo.state")
	v1, _ := os.ReadFile(filepath.Join("testdata", "v1-cluster.state"))
	os.WriteFile(path, v1, 0o600)
	alice := ageOperator(t)
	st := NewStore(path)
	st.SetKeyring(keyring(t, []operator{alice}, alice))
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), sampleKey) || !strings.Contains(string(data), fmt.Sprintf(`"format_version": %d`, FormatVersion)) {
		t.Errorf("upgraded state not sealed:\n%s", data)
	}
	ca, _ := readWith(t, path, keyring(t, nil, alice)).Lookup("pki.cluster_ca")
	if ca.Attributes["key_pem"] != sampleKey {
		t.Errorf("key after upgrade+seal = %v", ca.Attributes["key_pem"])
	}
}

func TestBadKeysNamedNotQuoted(t *testing.T) {
	alice := ageOperator(t)
	secret, _ := os.ReadFile(alice.idPath)
	idLine := strings.TrimSpace(strings.Split(string(secret), "\n")[1])
	if _, err := NewKeyring([]string{idLine}, nil); err == nil || strings.Contains(err.Error(), idLine[20:]) {
		t.Errorf("a private key given as recipient: %v", err)
	}
	if _, err := NewKeyring([]string{"age1notakey"}, nil); err == nil || !strings.Contains(err.Error(), "recipient #1") {
		t.Errorf("bad recipient: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("hello\n"), 0o600)
	if _, err := ReadIdentities(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad identity file: %v", err)
	}
	if _, err := ReadIdentities(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing identity file: %v", err)
	}
}

func TestPassphraseProtectedSSHKeyRefusedClearly(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("secret passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	os.WriteFile(path, pem.EncodeToMemory(block), 0o600)
	_, err = ReadIdentities(path)
	if err == nil || !strings.Contains(err.Error(), "passphrase") || !strings.Contains(err.Error(), path) {
		t.Errorf("encrypted SSH key: %v", err)
	}
}
