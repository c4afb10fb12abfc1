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
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

// A target's HostKey (the connection's host_key) is checked from the very
// first contact, with or without pins, and no known_hosts file is needed.
func TestConfiguredHostKeyConnectsWithoutKnownHosts(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = filepath.Join(t.TempDir(), "absent")
	target.HostKey = FormatHostKey(f.server.HostPublicKey()) + " root@node-a" // a comment is allowed

	c := dial(t, target) // no pins: the provider alone
	if got := output(t, c, "echo configured"); got != "configured" {
		t.Fatalf("got %q", got)
	}

	pins := newPins(nil)
	c2, err := DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("dial with pins: %v", err)
	}
	_ = c2.Close()
	// Pinned in state as any first contact is.
	if len(pins.seen) != 1 || pins.seen[0] != "node-a" || !sameKey(pins.seenAs[0], f.server.HostPublicKey()) {
		t.Fatalf("Seen %v, want node-a with the server's key", pins.seen)
	}
}

// Any other key is refused, naming the host, the address, both
// fingerprints and the attribute; known_hosts, which knows the server's
// real key here, is not consulted, and no first-use trust is given.
func TestConfiguredHostKeyRefusesAnotherKey(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t) // its known_hosts file holds the server's key
	configured := newHostKey(t)
	target.HostKey = FormatHostKey(configured)
	presented := f.server.HostPublicKey()

	for name, o := range map[string]Options{"without pins": {}, "with pins": {Pins: newPins(nil)}} {
		t.Run(name, func(t *testing.T) {
			o.Backoff = 5 * time.Second
			start := time.Now()
			_, err := DialWith(context.Background(), target, o)
			var hk *HostKeyError
			if !errors.As(err, &hk) || !hk.Configured || !hk.Mismatch || hk.Pinned {
				t.Fatalf("want a configured-key HostKeyError, got %v", err)
			}
			if time.Since(start) > 4*time.Second {
				t.Error("a configured-key mismatch was retried")
			}
			msg := err.Error()
			for _, want := range []string{"node-a", f.server.Addr, "HOST KEY MISMATCH", "host_key", "will not connect",
				Fingerprint(configured), Fingerprint(presented)} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			if strings.Contains(msg, FormatHostKey(configured)) || strings.Contains(msg, FormatHostKey(presented)) {
				t.Errorf("error %q repeats a key whole; fingerprints are enough", msg)
			}
			if p, ok := o.Pins.(*memPins); ok && len(p.seen) != 0 {
				t.Fatalf("Seen called after a refused key: %v", p.seen)
			}
		})
	}
	if strings.Contains(f.server.Log(), "Accepted publickey") {
		t.Fatal("eggo authenticated to a host whose key it refused")
	}
}

// A host holding several keys is asked for the configured one's type
// first, so it presents that key rather than being refused for another.
func TestConfiguredHostKeyOfAnotherType(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{ExtraHostKeys: []string{"rsa"}})
	rsa := f.server.HostPublicKeys()[1]
	target := f.target(t)
	target.KnownHostsFile = filepath.Join(t.TempDir(), "absent")
	target.HostKey = FormatHostKey(rsa)
	pins := newPins(nil)
	c, err := DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("dial with an RSA host_key: %v", err)
	}
	_ = c.Close()
	if len(pins.seenAs) != 1 || !sameKey(pins.seenAs[0], rsa) {
		t.Fatal("the key pinned is not the configured RSA key")
	}
	if k, err := ScanHostKey(context.Background(), target, Options{}); err != nil || !sameKey(k, rsa) {
		t.Fatalf("scan: %v, want the configured RSA key", err)
	}
}

// Once pinned, the pin governs: the plan refuses a host_key that differs
// from it, so a difference at dial time is a record written before
// `eggo state rekey-host` replaced the pin. The same key as the pin is
// reported against host_key, with the rekey hint.
func TestConfiguredHostKeyAndPin(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = filepath.Join(t.TempDir(), "absent")
	target.HostKey = FormatHostKey(newHostKey(t)) // a stale record's
	c, err := DialWith(context.Background(), target, Options{Pins: newPins(map[string]ssh.PublicKey{"node-a": f.server.HostPublicKey()})})
	if err != nil {
		t.Fatalf("dial with the pin the host presents: %v", err)
	}
	_ = c.Close()

	other := newHostKey(t)
	target.HostKey = FormatHostKey(other)
	_, err = DialWith(context.Background(), target, Options{Pins: newPins(map[string]ssh.PublicKey{"node-a": other})})
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Configured || !hk.Pinned {
		t.Fatalf("want a configured and pinned HostKeyError, got %v", err)
	}
	if !strings.Contains(err.Error(), "host_key") || !strings.Contains(err.Error(), "eggo state rekey-host node-a") {
		t.Errorf("error %q does not point at host_key and rekey-host", err)
	}
}

// A bastion's own HostKey is checked as a node's is, in place of
// known_hosts.
func TestConfiguredHostKeyOfABastion(t *testing.T) {
	noSSHAgent(t)
	target := newFixture(t, sshdtest.Options{})
	jump := newFixture(t, sshdtest.Options{TCPForwarding: true})
	bt := jump.target(t)
	bt.Name = "jump"
	bt.KnownHostsFile = filepath.Join(t.TempDir(), "absent")
	bt.HostKey = FormatHostKey(jump.server.HostPublicKey())
	tt := target.target(t)
	tt.Bastion = &bt
	c, err := DialWith(context.Background(), tt, Options{Pins: newPins(nil)})
	if err != nil {
		t.Fatalf("dial through a bastion with host_key: %v", err)
	}
	_ = c.Close()

	bt.HostKey = FormatHostKey(newHostKey(t))
	_, err = DialWith(context.Background(), tt, Options{Pins: newPins(nil)})
	var hk *HostKeyError
	if !errors.As(err, &hk) || hk.Host != "jump" || !hk.Configured {
		t.Fatalf("want the bastion's key refused against its host_key, got %v", err)
	}
}

// A scan's key is checked against the host_key, not known_hosts, before
// a plan offers to pin it.
func TestCheckFirstContactWithHostKey(t *testing.T) {
	configured, other := newHostKey(t), newHostKey(t)
	// known_hosts knows the host by the other key: it is not consulted.
	file := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize("10.0.0.5:2222")}, other)
	if err := os.WriteFile(file, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := providers.Target{Name: "w1", Address: "10.0.0.5", Port: 2222, KnownHostsFile: file, HostKey: FormatHostKey(configured)}
	if err := CheckFirstContact(target, configured); err != nil {
		t.Errorf("the configured key: %v", err)
	}
	err := CheckFirstContact(target, other)
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Configured {
		t.Fatalf("another key: %v, want a configured-key mismatch", err)
	}

	target.HostKey = "ssh-ed25519 not-base64"
	if err := CheckFirstContact(target, other); err == nil || !strings.Contains(err.Error(), "host_key") {
		t.Fatalf("an unparsable host_key: %v, want it refused", err)
	}
}
