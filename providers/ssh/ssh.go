// Package ssh is eggo's SSH transport: one multiplexed client connection per
// host, authenticated by key file, ssh-agent or password, with host keys
// verified against known_hosts (never ignored), optional bastion hops,
// bounded connect retries, commands killed on the host when their context
// ends, and uploads verified by sha256 on the far side.
package ssh

import (
	"context"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

func init() { providers.Register("ssh", Dial) }

// Defaults for Target fields left zero.
const (
	DefaultPort           = 22
	DefaultConnectTimeout = 10 * time.Second
	DefaultRetries        = 3
	// DefaultMaxSessions bounds concurrent sessions on one connection.
	// OpenSSH's MaxSessions defaults to 10 per connection; staying below it
	// (with one session kept free for killing cancelled commands) means a
	// busy run never has a session refused by a stock host.
	DefaultMaxSessions = 8
)

// Options are settings a Target cannot express.
type Options struct {
	// HostKeyCallback, when set, verifies host keys instead of known_hosts
	// (the seam for keys pinned in state). It is asked once per hop, so a
	// bastion and its target can be checked differently.
	HostKeyCallback func(t providers.Target) (ssh.HostKeyCallback, error)
	// MaxSessions bounds concurrent sessions; DefaultMaxSessions when zero.
	MaxSessions int
	// Backoff is the wait before the first retry, doubled for each next
	// one; 500ms when zero.
	Backoff time.Duration
}

// Dial connects to t with default Options. It is the "ssh" Dialer.
func Dial(ctx context.Context, t providers.Target) (providers.Conn, error) {
	return DialWith(ctx, t, Options{})
}

// DialWith connects to t (through t.Bastion when set).
func DialWith(ctx context.Context, t providers.Target, o Options) (*Conn, error) {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	var bastion *ssh.Client
	if t.Bastion != nil {
		b := withDefaults(*t.Bastion)
		var err error
		bastion, err = connect(ctx, b, o, nil)
		if err != nil {
			return nil, err
		}
	}
	t = withDefaults(t)
	client, err := connect(ctx, t, o, bastion)
	if err != nil {
		if bastion != nil {
			_ = bastion.Close()
		}
		return nil, err
	}
	return newConn(t, client, bastion, o.MaxSessions), nil
}

func withDefaults(t providers.Target) providers.Target {
	if t.Port == 0 {
		t.Port = DefaultPort
	}
	if t.ConnectTimeout <= 0 {
		t.ConnectTimeout = DefaultConnectTimeout
	}
	if t.Retries == 0 {
		t.Retries = DefaultRetries
	}
	if t.Retries < 0 {
		t.Retries = 0
	}
	if t.Name == "" {
		t.Name = t.Address
	}
	return t
}
