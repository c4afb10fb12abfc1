// Package ssh is eggo's SSH transport: one multiplexed client connection per
// host, authenticated by key file, ssh-agent or password, with host keys
// never ignored — verified against known_hosts, or against the keys pinned
// in state (Options.Pins: recorded on first contact, a different key later
// refused until `eggo state rekey-host`), or against the key the
// configuration gives (Target.HostKey, from the first contact on) —
// optional bastion hops, bounded connect retries, commands killed on the
// host when their context ends, and uploads verified by sha256 on the far
// side. ScanHostKey reads the key a host presents without logging in, as
// ssh-keyscan does.
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

	defaultBackoff = 500 * time.Millisecond
)

// Options are settings a Target cannot express.
type Options struct {
	// Pins, when set, verifies the target (never its bastion) by the key
	// pinned for it in state: a different key is a HostKeyError (Pinned)
	// and is never retried. An unpinned target must present its HostKey
	// when set (known_hosts is not consulted); else it is checked against
	// its known_hosts file if that knows the host, else its key is trusted
	// on first use; either way Pins.Seen receives the key once connected.
	Pins HostKeyPins
	// HostKeyCallback, when set, verifies host keys instead of known_hosts.
	// It is asked once per hop, so a bastion and its target can be checked
	// differently; Pins takes precedence for the target, and a hop's
	// HostKey over it.
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
		o.Backoff = defaultBackoff
	}
	bastion, err := dialBastion(ctx, t, o)
	if err != nil {
		return nil, err
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

// bastionOptions are o for a bastion hop: pins belong to the nodes, so a
// bastion is verified as ever (its HostKey, HostKeyCallback or known_hosts).
func bastionOptions(o Options) Options {
	o.Pins = nil
	return o
}

// dialBastion connects to t's bastion, verified as bastions are (known_hosts,
// never pins); nil when t has none.
func dialBastion(ctx context.Context, t providers.Target, o Options) (*ssh.Client, error) {
	if t.Bastion == nil {
		return nil, nil
	}
	return connect(ctx, withDefaults(*t.Bastion), bastionOptions(o), nil)
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
