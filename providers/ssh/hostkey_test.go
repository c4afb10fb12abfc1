package ssh

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

func TestUnknownHostKeyIsRefusedWithKeyscanHint(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	other := sshdtest.Start(t, sshdtest.Options{}) // a different host, known instead
	target.KnownHostsFile = other.WriteKnownHosts(t)
	// The known host sits on another port, so for this address it is unknown.
	_, err := DialWith(context.Background(), target, Options{Backoff: 5 * time.Second})
	var hk *HostKeyError
	if !errors.As(err, &hk) || hk.Mismatch {
		t.Fatalf("want an unknown-host HostKeyError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"node-a", f.server.Addr, "not known", "ssh-keyscan", "-p " + itoa(f.server.Port), ssh.FingerprintSHA256(f.server.HostPublicKey())} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
}

func TestMissingKnownHostsFileSaysHowToCreateIt(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = filepath.Join(t.TempDir(), "absent")
	_, err := DialWith(context.Background(), target, Options{})
	if err == nil || !strings.Contains(err.Error(), "ssh-keyscan") || !strings.Contains(err.Error(), target.KnownHostsFile) {
		t.Fatalf("want a known_hosts hint naming the file, got %v", err)
	}
}

func TestHostKeyMismatchIsLoudAndNotRetried(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	impostor := sshdtest.Start(t, sshdtest.Options{})
	// known_hosts claims our server's address has the impostor's key.
	line := strings.Replace(impostor.KnownHostsLine(), itoa(impostor.Port), itoa(f.server.Port), 1)
	if err := os.WriteFile(target.KnownHostsFile, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := DialWith(context.Background(), target, Options{Backoff: 5 * time.Second})
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Mismatch {
		t.Fatalf("want a mismatch HostKeyError, got %v", err)
	}
	if time.Since(start) > 4*time.Second {
		t.Error("a host key mismatch was retried")
	}
	msg := err.Error()
	for _, want := range []string{
		"HOST KEY MISMATCH", "node-a", f.server.Addr,
		ssh.FingerprintSHA256(impostor.HostPublicKey()), // expected
		ssh.FingerprintSHA256(f.server.HostPublicKey()), // presented
		target.KnownHostsFile + ":1", "ssh-keygen -R",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
}

func TestHostKeyCallbackSeamReplacesKnownHosts(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = "/nonexistent/known_hosts" // not consulted
	var asked []string
	c, err := DialWith(context.Background(), target, Options{
		HostKeyCallback: func(tg providers.Target) (ssh.HostKeyCallback, error) {
			asked = append(asked, tg.Name)
			return ssh.FixedHostKey(f.server.HostPublicKey()), nil
		},
	})
	if err != nil {
		t.Fatalf("dial with pinned key: %v", err)
	}
	_ = c.Close()
	if len(asked) != 1 || asked[0] != "node-a" {
		t.Fatalf("callback asked for %v", asked)
	}
}
