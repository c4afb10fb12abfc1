package sshd

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/ssh"
)

// GenerateUserKey writes a new passphrase-less ed25519 private key (OpenSSH
// format, mode 0600) into a temporary directory and returns its path and
// public key.
func GenerateUserKey(t testing.TB) (keyFile string, pub ssh.PublicKey) {
	t.Helper()
	return GenerateUserKeyWithPassphrase(t, "")
}

// GenerateUserKeyWithPassphrase is GenerateUserKey with the private key
// encrypted by passphrase (none when empty).
func GenerateUserKeyWithPassphrase(t testing.TB, passphrase string) (keyFile string, pub ssh.PublicKey) {
	t.Helper()
	edPub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("sshd: generate user key: %v", err)
	}
	keyFile = filepath.Join(t.TempDir(), "id_ed25519")
	var pass []byte
	if passphrase != "" {
		pass = []byte(passphrase)
	}
	writePrivateKey(t, keyFile, priv, pass)
	pub, err = ssh.NewPublicKey(edPub)
	if err != nil {
		t.Fatalf("sshd: user public key: %v", err)
	}
	return keyFile, pub
}

func writePrivateKey(t testing.TB, path string, key crypto.PrivateKey, passphrase []byte) {
	t.Helper()
	var block *pem.Block
	var err error
	if passphrase == nil {
		block, err = ssh.MarshalPrivateKey(key, "eggo-test")
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(key, "eggo-test", passphrase)
	}
	if err != nil {
		t.Fatalf("sshd: marshal private key: %v", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatalf("sshd: write private key %s: %v", path, err)
	}
}
