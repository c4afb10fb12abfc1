// Package providers is how eggo's work reaches a machine: a Conn runs
// commands and copies files; a Pool keeps exactly one Conn per host per run.
// The transports live in providers/ssh and providers/local.
package providers

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// Target says how to reach one host. It never holds a secret: a password is
// named by the environment variable that holds it.
type Target struct {
	Name           string // node name, for messages
	Type           string // "ssh" (default) | "local"
	Address        string
	Port           int // default 22
	User           string
	PrivateKeyFile string
	PasswordEnv    string
	Agent          bool
	KnownHostsFile string
	// HostKey, when set, is the one key the host may present, in
	// authorized_keys form ("ssh-ed25519 AAAA…"): known_hosts is then not
	// consulted for it. A public key, so no secret.
	HostKey        string
	Sudo           bool
	ConnectTimeout time.Duration // default 10s
	Retries        int           // connect attempts after the first, with backoff; default 3
	Bastion        *Target
}

// Key identifies a target in a pool.
func (t Target) Key() string {
	b := ""
	if t.Bastion != nil {
		b = " via " + t.Bastion.Key()
	}
	return fmt.Sprintf("%s %s@%s:%d%s", t.Type, t.User, t.Address, t.Port, b)
}

// Command is one remote command. Cmd is a shell command line run by sh -c
// (under sudo when the target says so).
type Command struct {
	Cmd    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Mutates says the command changes the host. The pool counts such
	// commands (and uploads) as writes: a no-op apply must make none.
	Mutates bool
}

// ExitError is returned when a command ran and exited non-zero or by a signal.
type ExitError struct {
	Host   string
	Cmd    string
	Code   int    // -1 when killed by a signal
	Signal string // e.g. "TERM"
	Stderr string // bounded tail of stderr, when it was not captured by the caller
}

func (e *ExitError) Error() string {
	if e.Signal != "" {
		return fmt.Sprintf("%s: command %q killed by signal %s%s", e.Host, e.Cmd, e.Signal, tail(e.Stderr))
	}
	return fmt.Sprintf("%s: command %q exited %d%s", e.Host, e.Cmd, e.Code, tail(e.Stderr))
}

func tail(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// Conn is one live connection to a host. Safe for concurrent use: each Run
// or Upload is its own session on the one connection.
type Conn interface {
	// Run runs a command; cancelling ctx kills it on the host.
	Run(ctx context.Context, c Command) error
	// Upload streams r to dst: written to a temporary file beside dst,
	// checked against wantSHA256 (hex) with sha256sum on the far side, then
	// chmod'ed and renamed over dst. The parent directory must exist.
	Upload(ctx context.Context, r io.Reader, size int64, dst string, mode fs.FileMode, wantSHA256 string) error
	// Close ends the connection.
	Close() error
}

// Dialer opens a Conn for a target.
type Dialer func(ctx context.Context, t Target) (Conn, error)

var dialers = map[string]Dialer{}

// Register makes a transport available by type name. Called from the
// transports' init functions.
func Register(typ string, d Dialer) { dialers[typ] = d }

// TempName is where an upload to dst is staged. It is fixed, not random:
// a copy cut off mid-way (a dropped connection cannot clean up) leaves a
// file the next upload overwrites and a delete of dst can remove.
func TempName(dst string) string { return dst + ".eggo-tmp" }
