package sshdtest

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// dialWithHostKey logs in requiring exactly key as the host key.
func dialWithHostKey(t *testing.T, s *Server, keyFile string, key ssh.PublicKey) error {
	t.Helper()
	algos := []string{key.Type()}
	if key.Type() == ssh.KeyAlgoRSA {
		algos = []string{ssh.KeyAlgoRSASHA512}
	}
	c, err := ssh.Dial("tcp", s.Addr, &ssh.ClientConfig{
		User:              "root",
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(loadSigner(t, keyFile))},
		HostKeyCallback:   ssh.FixedHostKey(key),
		HostKeyAlgorithms: algos,
	})
	if err == nil {
		c.Close()
	}
	return err
}

func TestExtraHostKeysAreServed(t *testing.T) {
	keyFile, pub := GenerateUserKey(t)
	s := Start(t, Options{AuthorizedKeys: []ssh.PublicKey{pub}, ExtraHostKeys: []string{"rsa", "ecdsa"}})
	keys := s.HostPublicKeys()
	want := []string{ssh.KeyAlgoED25519, ssh.KeyAlgoRSA, ssh.KeyAlgoECDSA256}
	if len(keys) != len(want) {
		t.Fatalf("%d host keys, want %d", len(keys), len(want))
	}
	for i, k := range keys {
		if k.Type() != want[i] {
			t.Errorf("host key %d is %s, want %s", i, k.Type(), want[i])
		}
		if err := dialWithHostKey(t, s, keyFile, k); err != nil {
			t.Errorf("login expecting the %s host key: %v\n%s", k.Type(), err, s.Log())
		}
	}
}

func TestRegenerateHostKeysKeepsTheAddress(t *testing.T) {
	keyFile, pub := GenerateUserKey(t)
	s := Start(t, Options{AuthorizedKeys: []ssh.PublicKey{pub}, ExtraHostKeys: []string{"ecdsa"}})
	addr, before := s.Addr, s.HostPublicKeys()
	s.RegenerateHostKeys(t)
	if s.Addr != addr {
		t.Fatalf("address moved from %s to %s", addr, s.Addr)
	}
	after := s.HostPublicKeys()
	for i := range before {
		if bytes.Equal(before[i].Marshal(), after[i].Marshal()) {
			t.Errorf("%s host key unchanged", before[i].Type())
		}
		if err := dialWithHostKey(t, s, keyFile, after[i]); err != nil {
			t.Errorf("login expecting the new %s key: %v", after[i].Type(), err)
		}
		if err := dialWithHostKey(t, s, keyFile, before[i]); err == nil || !strings.Contains(err.Error(), "host key mismatch") {
			t.Errorf("login expecting the old %s key: %v, want a host key mismatch", before[i].Type(), err)
		}
	}
	if !strings.HasSuffix(s.KnownHostsLine(), " "+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(after[0])))) {
		t.Error("KnownHostsLine still names the old key")
	}
}
