package ssh

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

// fixture is a real sshd that accepts one generated key for any user.
type fixture struct {
	server  *sshdtest.Server
	keyFile string
	pub     ssh.PublicKey
}

func newFixture(t *testing.T, opts sshdtest.Options) *fixture {
	t.Helper()
	keyFile, pub := sshdtest.GenerateUserKey(t)
	opts.AuthorizedKeys = append(opts.AuthorizedKeys, pub)
	return &fixture{server: sshdtest.Start(t, opts), keyFile: keyFile, pub: pub}
}

// target reaches the fixture as root with its key and a known_hosts file
// holding its host key.
func (f *fixture) target(t *testing.T) providers.Target {
	return providers.Target{
		Name:           "node-a",
		Type:           "ssh",
		Address:        "127.0.0.1",
		Port:           f.server.Port,
		User:           "root",
		PrivateKeyFile: f.keyFile,
		KnownHostsFile: f.server.WriteKnownHosts(t),
		ConnectTimeout: 5 * time.Second,
	}
}

func dial(t *testing.T, target providers.Target) *Conn {
	t.Helper()
	c, err := DialWith(context.Background(), target, Options{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// output runs cmd and returns its trimmed stdout.
func output(t *testing.T, c providers.Conn, cmd string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := c.Run(context.Background(), providers.Command{Cmd: cmd, Stdout: &out, Stderr: &errOut}); err != nil {
		t.Fatalf("run %q: %v (stderr %q)", cmd, err, errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// noSSHAgent keeps a developer's own agent out of a test.
func noSSHAgent(t *testing.T) { t.Setenv("SSH_AUTH_SOCK", "") }

func itoa(i int) string { return strconv.Itoa(i) }

// base64Run is a stretch of base64 long enough to be a key or a
// fingerprint: random material that can hold a short name by chance.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=]{20,}`)

// namesWord reports whether text holds word as a word of its own outside
// base64 runs: a fingerprint such as SHA256:…Xw1q… names no node.
func namesWord(text, word string) bool {
	rest := base64Run.ReplaceAllString(text, " ")
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`).MatchString(rest)
}
