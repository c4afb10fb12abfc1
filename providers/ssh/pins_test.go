package ssh

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

// memPins is HostKeyPins in memory, recording every call.
type memPins struct {
	mu     sync.Mutex
	keys   map[string]ssh.PublicKey
	asked  []string // nodes Pinned was asked about
	seen   []string // nodes Seen was told about
	seenAs []ssh.PublicKey
}

func newPins(pinned map[string]ssh.PublicKey) *memPins {
	if pinned == nil {
		pinned = map[string]ssh.PublicKey{}
	}
	return &memPins{keys: pinned}
}

func (p *memPins) Pinned(node string) (ssh.PublicKey, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, node)
	k, ok := p.keys[node]
	return k, ok
}

func (p *memPins) Seen(node string, key ssh.PublicKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, node)
	p.seenAs = append(p.seenAs, key)
	p.keys[node] = key
}

func sameKey(a, b ssh.PublicKey) bool { return bytes.Equal(a.Marshal(), b.Marshal()) }

func TestPinnedKeyConnects(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = "/nonexistent/known_hosts" // pins replace it
	pins := newPins(map[string]ssh.PublicKey{"node-a": f.server.HostPublicKey()})
	c, err := DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("dial with the right pin: %v", err)
	}
	defer c.Close()
	if got := output(t, c, "echo pinned"); got != "pinned" {
		t.Fatalf("got %q", got)
	}
	if len(pins.seen) != 0 {
		t.Fatalf("Seen called for an already pinned node: %v", pins.seen)
	}
}

func TestRegeneratedHostKeyIsRefusedAgainstPin(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	old := f.server.HostPublicKey()
	pins := newPins(map[string]ssh.PublicKey{"node-a": old})
	f.server.RegenerateHostKeys(t) // reinstalled: same address, new key
	presented := f.server.HostPublicKey()
	if sameKey(old, presented) {
		t.Fatal("RegenerateHostKeys kept the key")
	}
	start := time.Now()
	_, err := DialWith(context.Background(), target, Options{Pins: pins, Backoff: 5 * time.Second})
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Pinned || !hk.Mismatch {
		t.Fatalf("want a pinned-key HostKeyError, got %v", err)
	}
	if time.Since(start) > 4*time.Second {
		t.Error("a pinned-key mismatch was retried")
	}
	if !sameKey(hk.PresentedKey, presented) {
		t.Error("PresentedKey is not the server's new key")
	}
	msg := err.Error()
	for _, want := range []string{
		"node-a", f.server.Addr, "HOST KEY MISMATCH", "will not connect",
		Fingerprint(old), Fingerprint(presented), "eggo state rekey-host node-a",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if len(pins.seen) != 0 {
		t.Fatalf("Seen called after a refused key: %v", pins.seen)
	}
	if strings.Contains(f.server.Log(), "Accepted publickey") {
		t.Fatal("eggo authenticated to a host whose key it refused")
	}
}

func TestUnpinnedHostWithoutKnownHostsIsTrustedOnFirstUse(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = filepath.Join(t.TempDir(), "absent")
	pins := newPins(nil)
	c, err := DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("first contact: %v", err)
	}
	if got := output(t, c, "echo first"); got != "first" {
		t.Fatalf("got %q", got)
	}
	_ = c.Close()
	if len(pins.seen) != 1 || pins.seen[0] != "node-a" || !sameKey(pins.seenAs[0], f.server.HostPublicKey()) {
		t.Fatalf("Seen calls %v, want one for node-a with the server's key", pins.seen)
	}
	// The key is pinned now: the next contact checks it and sees nothing new.
	c, err = DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("second contact: %v", err)
	}
	_ = c.Close()
	if len(pins.seen) != 1 {
		t.Fatalf("Seen called again for a pinned node: %v", pins.seen)
	}
}

func TestUnpinnedHostUnknownToKnownHostsIsTrustedOnFirstUse(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	other := sshdtest.Start(t, sshdtest.Options{})
	target.KnownHostsFile = other.WriteKnownHosts(t) // knows only another port
	pins := newPins(nil)
	c, err := DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("first contact: %v", err)
	}
	_ = c.Close()
	if len(pins.seen) != 1 || !sameKey(pins.seenAs[0], f.server.HostPublicKey()) {
		t.Fatalf("Seen calls %v, want one with the server's key", pins.seen)
	}
}

func TestUnpinnedHostKnownToKnownHostsMustMatch(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	impostor := sshdtest.Start(t, sshdtest.Options{})
	line := strings.Replace(impostor.KnownHostsLine(), itoa(impostor.Port), itoa(f.server.Port), 1)
	if err := os.WriteFile(target.KnownHostsFile, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pins := newPins(nil)
	start := time.Now()
	_, err := DialWith(context.Background(), target, Options{Pins: pins, Backoff: 5 * time.Second})
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Mismatch || hk.Pinned {
		t.Fatalf("want today's known_hosts mismatch, got %v", err)
	}
	if time.Since(start) > 4*time.Second {
		t.Error("a known_hosts mismatch was retried")
	}
	for _, want := range []string{"known_hosts expects", Fingerprint(impostor.HostPublicKey()), target.KnownHostsFile + ":1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if len(pins.seen) != 0 {
		t.Fatalf("Seen called after a refused key: %v", pins.seen)
	}

	// The right key in known_hosts is accepted, and pinned.
	target.KnownHostsFile = f.server.WriteKnownHosts(t)
	c, err := DialWith(context.Background(), target, Options{Pins: pins})
	if err != nil {
		t.Fatalf("dial with a matching known_hosts: %v", err)
	}
	_ = c.Close()
	if len(pins.seen) != 1 || !sameKey(pins.seenAs[0], f.server.HostPublicKey()) {
		t.Fatalf("Seen calls %v, want one with the server's key", pins.seen)
	}
}

// A host holding several keys presents the pinned one, whichever it is.
func TestPinOfEachKeyTypeOnAHostWithSeveral(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{ExtraHostKeys: []string{"rsa", "ecdsa"}})
	for _, key := range f.server.HostPublicKeys() {
		t.Run(key.Type(), func(t *testing.T) {
			target := f.target(t)
			pins := newPins(map[string]ssh.PublicKey{"node-a": key})
			c, err := DialWith(context.Background(), target, Options{Pins: pins})
			if err != nil {
				t.Fatalf("dial with a %s pin: %v", key.Type(), err)
			}
			_ = c.Close()
		})
	}
}

// A host that no longer has a key of the pinned type is a mismatch naming
// both keys, not a failed algorithm negotiation.
func TestPinOfAKeyTypeTheHostLacksIsAMismatch(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	rsaHost := sshdtest.Start(t, sshdtest.Options{ExtraHostKeys: []string{"rsa"}})
	rsaKey := rsaHost.HostPublicKeys()[1]
	pins := newPins(map[string]ssh.PublicKey{"node-a": rsaKey})
	_, err := DialWith(context.Background(), f.target(t), Options{Pins: pins})
	var hk *HostKeyError
	if !errors.As(err, &hk) || !hk.Pinned {
		t.Fatalf("want a pinned-key HostKeyError, got %v", err)
	}
	for _, want := range []string{Fingerprint(rsaKey), Fingerprint(f.server.HostPublicKey())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// Pins belong to nodes: a bastion keeps its known_hosts check.
func TestPinsLeaveTheBastionToKnownHosts(t *testing.T) {
	noSSHAgent(t)
	target := newFixture(t, sshdtest.Options{})
	jump := newFixture(t, sshdtest.Options{TCPForwarding: true})
	bt := jump.target(t)
	bt.Name = "jump"
	tt := target.target(t)
	tt.Bastion = &bt
	tt.KnownHostsFile = filepath.Join(t.TempDir(), "absent")

	pins := newPins(nil)
	c, err := DialWith(context.Background(), tt, Options{Pins: pins})
	if err != nil {
		t.Fatalf("dial through bastion: %v", err)
	}
	if got := output(t, c, "echo through"); got != "through" {
		t.Fatalf("got %q", got)
	}
	_ = c.Close()
	if strings.Join(pins.asked, ",") != "node-a" || strings.Join(pins.seen, ",") != "node-a" {
		t.Fatalf("pins asked about %v and told of %v, want node-a only", pins.asked, pins.seen)
	}

	// A bastion unknown to its known_hosts is refused, not trusted on first use.
	bt.KnownHostsFile = target.server.WriteKnownHosts(t)
	_, err = DialWith(context.Background(), tt, Options{Pins: newPins(nil)})
	var hk *HostKeyError
	if !errors.As(err, &hk) || hk.Host != "jump" || hk.Mismatch {
		t.Fatalf("want the bastion's unknown key refused, got %v", err)
	}
}

func TestPinsTakePrecedenceOverHostKeyCallbackForTheTarget(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	var asked []string
	pins := newPins(map[string]ssh.PublicKey{"node-a": f.server.HostPublicKey()})
	c, err := DialWith(context.Background(), f.target(t), Options{
		Pins: pins,
		HostKeyCallback: func(tg providers.Target) (ssh.HostKeyCallback, error) {
			asked = append(asked, tg.Name)
			return nil, errors.New("not to be used")
		},
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = c.Close()
	if len(asked) != 0 {
		t.Fatalf("HostKeyCallback asked for %v", asked)
	}
}

// Callers outside this package tell a refused key from an unreachable host
// through the error chain, without importing it.
func TestHostKeyErrorIsRecognisableThroughWrapping(t *testing.T) {
	var err error = &providers.UnreachableError{Host: "node-a", Err: &HostKeyError{Host: "node-a", Pinned: true}}
	var refused interface{ HostKeyRefused() bool }
	if !errors.As(err, &refused) || !refused.HostKeyRefused() {
		t.Fatal("a wrapped HostKeyError does not say HostKeyRefused")
	}
}
