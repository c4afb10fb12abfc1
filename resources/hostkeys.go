package resources

import (
	"context"

	gossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/ssh"
)

// HostKeyPins is where a run's pinned SSH host keys live (the engine backs
// it with the state).
type HostKeyPins = ssh.HostKeyPins

// PinHostKeys makes every SSH connection of the run verify its host's key
// against pins (first contact: accepted and reported to pins.Seen).
func (rc *RunContext) PinHostKeys(pins HostKeyPins) {
	rc.pins = pins
	rc.Pool.SetDialer("ssh", func(ctx context.Context, t providers.Target) (providers.Conn, error) {
		c, err := ssh.DialWith(ctx, t, ssh.Options{Pins: pins})
		if err != nil {
			return nil, err // a plain nil: a typed nil *Conn would not be nil
		}
		return c, nil
	})
}

// ScanHostKey returns the host key a node presents, without logging in
// (like ssh-keyscan). Only SSH nodes have one: (nil, nil) for others.
func (rc *RunContext) ScanHostKey(ctx context.Context, n Node) (gossh.PublicKey, error) {
	t := TargetFor(n)
	if t.Type != "" && t.Type != "ssh" {
		return nil, nil
	}
	return ssh.ScanHostKey(ctx, t, ssh.Options{Pins: rc.pins})
}

// CheckKnownHost verifies a scanned key of a node met for the first time
// as its first dial would (see ssh.CheckFirstContact): a key other than
// its host_key, or a host its known_hosts file knows by other keys, is
// refused, so a scan never offers to pin a key either contradicts.
func CheckKnownHost(n Node, key gossh.PublicKey) error {
	t := TargetFor(n)
	if t.Type != "" && t.Type != "ssh" {
		return nil
	}
	return ssh.CheckFirstContact(t, key)
}

// FormatHostKey, ParseHostKey and Fingerprint render host keys for the
// state and messages.
var (
	FormatHostKey = ssh.FormatHostKey
	ParseHostKey  = ssh.ParseHostKey
	Fingerprint   = ssh.Fingerprint
)
