package sshdtest

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"os/exec"
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
// encrypted by passphrase (none when empty). Encrypted keys come from
// ssh-keygen: Go's bcrypt KDF is slow under the race detector.
func GenerateUserKeyWithPassphrase(t testing.TB, passphrase string) (keyFile string, pub ssh.PublicKey) {
	t.Helper()
	keyFile = filepath.Join(t.TempDir(), "id_ed25519")
	if passphrase != "" {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "eggo-test", "-f", keyFile).CombinedOutput()
		if err != nil {
			t.Fatalf("sshd: ssh-keygen: %v: %s (run `make deps`)", err, out)
		}
		b, err := os.ReadFile(keyFile + ".pub")
		if err != nil {
			t.Fatalf("sshd: read public key: %v", err)
		}
		pub, _, _, _, err = ssh.ParseAuthorizedKey(b)
		if err != nil {
			t.Fatalf("sshd: parse public key: %v", err)
		}
		return keyFile, pub
	}
	edPub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("sshd: generate user key: %v", err)
	}
	writePrivateKey(t, keyFile, priv)
	pub, err = ssh.NewPublicKey(edPub)
	if err != nil {
		t.Fatalf("sshd: user public key: %v", err)
	}
	return keyFile, pub
}

func writePrivateKey(t testing.TB, path string, key crypto.PrivateKey) {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(key, "eggo-test")
	if err != nil {
		t.Fatalf("sshd: marshal private key: %v", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatalf("sshd: write private key %s: %v", path, err)
	}
}
