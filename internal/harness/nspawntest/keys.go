package nspawntest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"

	"golang.org/x/crypto/ssh"
)

// keyPair is an ed25519 key in the files OpenSSH reads.
type keyPair struct {
	private []byte // OpenSSH PEM; never logged
	public  ssh.PublicKey
}

func newKeyPair(comment string) (*keyPair, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, err
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return &keyPair{private: pem.EncodeToMemory(block), public: sshPub}, nil
}

// authorizedLine is the public key as authorized_keys and .pub files hold it.
func (k *keyPair) authorizedLine() []byte { return ssh.MarshalAuthorizedKey(k.public) }

// write stores the private key (0600) at path and the public key at path.pub.
func (k *keyPair) write(path string) error {
	if err := os.WriteFile(path, k.private, 0o600); err != nil {
		return fmt.Errorf("write key %s: %w", path, err)
	}
	if err := os.WriteFile(path+".pub", k.authorizedLine(), 0o644); err != nil {
		return fmt.Errorf("write key %s.pub: %w", path, err)
	}
	return nil
}

// loadSigner reads a private key written by write.
func loadSigner(path string) (ssh.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read key %s: %w", path, err)
	}
	s, err := ssh.ParsePrivateKey(data)
	if err != nil {
		// The parse error never quotes key material, but say only which file.
		return nil, fmt.Errorf("parse key %s: not an OpenSSH private key", path)
	}
	return s, nil
}

// knownHostsLine pins a node's host key under both its name and address.
func knownHostsLine(name, address string, key ssh.PublicKey) string {
	return fmt.Sprintf("%s,%s %s", name, address, ssh.MarshalAuthorizedKey(key))
}
