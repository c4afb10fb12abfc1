package hookrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	cryptossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/local"
	"github.com/eggo-project/eggo/providers/ssh"
)

// transports runs f once over a real OpenSSH server on loopback and once
// over the local transport.
func transports(t *testing.T, f func(t *testing.T, conn providers.Conn)) {
	t.Run("ssh", func(t *testing.T) { f(t, sshConn(t)) })
	t.Run("local", func(t *testing.T) { f(t, localConn(t)) })
}

func sshConn(t *testing.T) providers.Conn {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	keyFile, pub := sshdtest.GenerateUserKey(t)
	server := sshdtest.Start(t, sshdtest.Options{AuthorizedKeys: []cryptossh.PublicKey{pub}})
	target := providers.Target{
		Name: "node-a", Type: "ssh", Address: "127.0.0.1", Port: server.Port, User: "root",
		PrivateKeyFile: keyFile, KnownHostsFile: server.WriteKnownHosts(t), ConnectTimeout: 5 * time.Second,
	}
	c, err := ssh.DialWith(context.Background(), target, ssh.Options{})
	if err != nil {
		t.Fatalf("dial sshd: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func localConn(t *testing.T) providers.Conn {
	t.Helper()
	c, err := local.Dial(context.Background(), providers.Target{Name: "node-a", Type: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// marker is a random word to find a test's processes with pgrep -f.
func marker(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "eggomark" + hex.EncodeToString(b)
}

// noProcessesLeft fails the test if any process's command line holds m.
func noProcessesLeft(t *testing.T, m string) {
	t.Helper()
	out, err := exec.Command("pgrep", "-af", m).Output()
	if err == nil {
		t.Errorf("processes left behind: %s", out)
	}
}

// tempDirEmpty fails the test if the hook left files in its temp dir.
func tempDirEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("the hook left %d entries in %s (first %s)", len(entries), dir, entries[0].Name())
	}
}

// spec is a one-script Spec with short limits and its own temp dir.
func spec(t *testing.T, script string) Spec {
	return Spec{
		Hook:    "prepare",
		Scripts: []Script{{Name: "prejoin.sh", Content: []byte(script)}},
		Timeout: 5 * time.Second,
		Grace:   time.Second,
		TempDir: t.TempDir(),
	}
}

func writeFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

func pgrep(m string) bool { return exec.Command("pgrep", "-f", m).Run() == nil }

func dirEmpty(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) == 0
}
