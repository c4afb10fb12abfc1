package ssh

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

// Conn is a live connection to one host. Every Run and Upload is its own
// session on the one client; at most MaxSessions run at once, so a host
// with OpenSSH's default MaxSessions (10) never refuses one.
type Conn struct {
	target   providers.Target
	client   *ssh.Client
	bastion  *ssh.Client
	sessions chan struct{}
	// killers is a separate, single slot for the sessions that kill
	// cancelled commands: they must not wait behind the commands they kill.
	killers chan struct{}
	done    chan struct{} // closed by Close: stops the keepalive
	lost    atomic.Bool   // the keepalive found the host dead and closed the connection
}

var _ providers.Conn = (*Conn)(nil)

func newConn(t providers.Target, client, bastion *ssh.Client, maxSessions int) *Conn {
	c := &Conn{target: t, client: client, bastion: bastion,
		sessions: make(chan struct{}, maxSessions), killers: make(chan struct{}, 1), done: make(chan struct{})}
	go keepalive(client, c.done, &c.lost)
	return c
}

// Client is the underlying SSH client, for callers that need more than
// commands and uploads (port forwards, for instance).
func (c *Conn) Client() *ssh.Client { return c.client }

// Close closes the connection and then the bastion's.
func (c *Conn) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	err := c.client.Close()
	if c.bastion != nil {
		if berr := c.bastion.Close(); err == nil {
			err = berr
		}
	}
	return err
}

// session opens a session once a slot is free; release frees the slot.
func (c *Conn) session(ctx context.Context, slots chan struct{}) (s *ssh.Session, release func(), err error) {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	s, err = c.newSession(ctx)
	if err != nil {
		<-slots
		if c.lost.Load() {
			// x/crypto's own error for a closed connection ("unexpected
			// packet in response to channel open: <nil>") says nothing more.
			return nil, nil, fmt.Errorf("connection to %s lost (no answer to keepalives for %s)",
				c.target.Address, keepaliveInterval*time.Duration(keepaliveMisses))
		}
		return nil, nil, fmt.Errorf("open SSH session: %w", err)
	}
	return s, func() { _ = s.Close(); <-slots }, nil
}

// refusedSessionRetry bounds how long a session the host refuses is asked for
// again. sshd frees a session's place only once it has handled the channel's
// close, which on a loaded host lags the close eggo sent, so a run that opens
// short sessions back to back can find the host still counting finished ones
// against its MaxSessions (seen in CI: a plan's refresh refused "open failed"
// on a host at 0 % idle CPU). A host configured below eggo's bound frees a
// place whenever one of eggo's own sessions ends.
var refusedSessionRetry = time.Minute

// newSession opens a session, asking again while the host refuses it for want
// of a free session (sshd's "open failed") and ctx and the retry bound last.
func (c *Conn) newSession(ctx context.Context) (*ssh.Session, error) {
	deadline := time.Now().Add(refusedSessionRetry)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		s, err := c.openSession()
		var refused *ssh.OpenChannelError
		if err == nil || !errors.As(err, &refused) || refused.Reason != ssh.ConnectionFailed {
			return s, err
		}
		if time.Now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("%w (the host refused every new session for %s: is its sshd's MaxSessions below eggo's %d?)",
				err, refusedSessionRetry, cap(c.sessions))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (refused for want of a free session until cancelled: %w)", err, ctx.Err())
		}
	}
}

// sessionOpenTimeout bounds how long the host may leave a request for a
// new session unanswered. x/crypto waits for the answer without limit, and
// a host can answer keepalives yet never a channel open (seen in CI: a
// host cut off mid-copy and restored; its next session hung the run for
// the whole test timeout). An unanswered session is a connection eggo can
// no longer use: it is closed, so every operation on it fails at once.
var sessionOpenTimeout = time.Minute

// openSession is client.NewSession, bounded by sessionOpenTimeout.
func (c *Conn) openSession() (*ssh.Session, error) {
	type opened struct {
		s   *ssh.Session
		err error
	}
	got := make(chan opened, 1)
	go func() {
		s, err := c.client.NewSession()
		got <- opened{s, err}
	}()
	select {
	case o := <-got:
		return o.s, o.err
	case <-time.After(sessionOpenTimeout):
		_ = c.Close() // unblocks NewSession, with an error
		if o := <-got; o.s != nil {
			_ = o.s.Close()
		}
		return nil, fmt.Errorf("%s answered no request for a new session in %s: the connection is closed", c.target.Address, sessionOpenTimeout)
	}
}
