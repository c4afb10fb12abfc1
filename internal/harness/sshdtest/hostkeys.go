package sshdtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// hostKeyFile is where the server keeps its host key of one type.
func hostKeyFile(dir, typ string) string {
	return filepath.Join(dir, "ssh_host_"+typ+"_key")
}

func checkKeyTypes(types []string) error {
	for _, typ := range types {
		if typ != "rsa" && typ != "ecdsa" {
			return fmt.Errorf("host key type %q: want rsa or ecdsa (ed25519 is always there)", typ)
		}
	}
	return nil
}

// writeHostKeys writes a fresh ed25519 host key and one of each extra type
// into dir, returning their public halves.
func writeHostKeys(t testing.TB, dir string, extra []string) (ed ssh.PublicKey, others []ssh.PublicKey) {
	t.Helper()
	ed = writeHostKey(t, dir, "ed25519")
	for _, typ := range extra {
		others = append(others, writeHostKey(t, dir, typ))
	}
	return ed, others
}

func writeHostKey(t testing.TB, dir, typ string) ssh.PublicKey {
	t.Helper()
	var priv crypto.Signer
	var err error
	switch typ {
	case "ed25519":
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	case "rsa":
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ecdsa":
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatalf("sshd: generate %s host key: %v", typ, err)
	}
	writePrivateKey(t, hostKeyFile(dir, typ), priv)
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		t.Fatalf("sshd: %s host public key: %v", typ, err)
	}
	return pub
}

// RegenerateHostKeys replaces every host key of the server with a new one
// and restarts it on the same address, as a host reinstalled under the same
// IP would appear. Connections open before are cut.
func (s *Server) RegenerateHostKeys(t testing.TB) {
	t.Helper()
	s.Stop()
	s.hostKey, s.others = writeHostKeys(t, s.Dir, s.extra)
	// The port was ours a moment ago; another process taking it in between
	// is unlikely but possible, so a failed bind is retried briefly.
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = s.launch(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("sshd: restart on %s with new host keys: %v", s.Addr, err)
}
