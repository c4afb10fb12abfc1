package resources

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

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
// against the node's known_hosts file, as its first dial would: a host the
// file knows by other keys is refused (*ssh.HostKeyError naming the file
// and both fingerprints), so a scan never offers to pin a key known_hosts
// contradicts. A missing file or a host it does not know is no objection
// (trust on first use, shown in the plan).
func CheckKnownHost(n Node, key gossh.PublicKey) error {
	t := TargetFor(n)
	if t.Type != "" && t.Type != "ssh" {
		return nil
	}
	file := t.KnownHostsFile
	if file == "" {
		file = "~/.ssh/known_hosts"
	}
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(file, "~/") {
		file = filepath.Join(home, file[2:])
	}
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	cb, err := knownhosts.New(file)
	if err != nil {
		return fmt.Errorf("%s: known_hosts file %s: %w", n.Name, file, err)
	}
	port := t.Port
	if port == 0 {
		port = ssh.DefaultPort
	}
	addr := net.JoinHostPort(t.Address, strconv.Itoa(port))
	err = cb(addr, &net.TCPAddr{IP: net.ParseIP(t.Address), Port: port}, key)
	var ke *knownhosts.KeyError
	if err == nil || (errors.As(err, &ke) && len(ke.Want) == 0) {
		return nil
	}
	if ke == nil {
		return fmt.Errorf("%s: known_hosts file %s: %w", n.Name, file, err)
	}
	e := &ssh.HostKeyError{Host: n.Name, Address: addr, File: file, Mismatch: true,
		Presented: gossh.FingerprintSHA256(key), KeyType: key.Type(), PresentedKey: key}
	for _, w := range ke.Want {
		e.Expected = append(e.Expected, fmt.Sprintf("%s (%s:%d)", Fingerprint(w.Key), w.Filename, w.Line))
	}
	return e
}

// FormatHostKey, ParseHostKey and Fingerprint render host keys for the
// state and messages.
var (
	FormatHostKey = ssh.FormatHostKey
	ParseHostKey  = ssh.ParseHostKey
	Fingerprint   = ssh.Fingerprint
)
