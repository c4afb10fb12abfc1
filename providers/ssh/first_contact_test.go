package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/eggo-project/eggo/providers"
)

func newHostKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := ssh.NewPublicKey(pub)
	return k
}

func TestCheckFirstContact(t *testing.T) {
	known, other := newHostKey(t), newHostKey(t)
	file := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize("10.0.0.5:2222")}, known)
	if err := os.WriteFile(file, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := providers.Target{Name: "w1", Address: "10.0.0.5", Port: 2222, KnownHostsFile: file}

	if err := CheckFirstContact(target, known); err != nil {
		t.Errorf("the key known_hosts holds: %v", err)
	}
	err := CheckFirstContact(target, other)
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Mismatch || !hk.HostKeyRefused() {
		t.Fatalf("another key: %v, want a mismatch", err)
	}
	for _, want := range []string{file, ssh.FingerprintSHA256(known), ssh.FingerprintSHA256(other)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if !namesWord(err.Error(), "w1") { // the two fingerprints are random base64 that can hold "w1"
		t.Errorf("error does not name w1: %v", err)
	}
	unknown := target
	unknown.Address = "10.0.0.6"
	if err := CheckFirstContact(unknown, other); err != nil {
		t.Errorf("a host known_hosts does not know: %v", err)
	}
	missing := target
	missing.KnownHostsFile = filepath.Join(t.TempDir(), "none")
	if err := CheckFirstContact(missing, other); err != nil {
		t.Errorf("no known_hosts file: %v", err)
	}
}
