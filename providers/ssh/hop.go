package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

// dialHop opens the TCP connection to addr, through bastion when set, and
// says how it went for messages (" via bastion HOST:PORT" or "").
func dialHop(ctx context.Context, t providers.Target, bastion *ssh.Client, addr string) (net.Conn, string, error) {
	dialCtx, cancel := context.WithTimeout(ctx, t.ConnectTimeout)
	defer cancel()
	var conn net.Conn
	var err error
	via := ""
	if bastion != nil {
		via = " via bastion " + bastion.RemoteAddr().String()
		conn, err = bastion.DialContext(dialCtx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(dialCtx, "tcp", addr)
	}
	if err != nil {
		err = fmt.Errorf("%s: cannot reach %s%s: %w", t.Name, addr, via, err)
		var open *ssh.OpenChannelError
		if errors.As(err, &open) && open.Reason == ssh.Prohibited {
			return nil, via, fmt.Errorf("%w (the bastion forbids TCP forwarding: AllowTcpForwarding)", err)
		}
		return nil, via, &networkError{err}
	}
	return conn, via, nil
}

// handshake runs the SSH handshake on conn; on failure conn is closed.
// The handshake must obey the timeout and ctx too; a connection through a
// bastion has no deadlines, so closing it is the one way to stop it.
func handshake(ctx context.Context, t providers.Target, conn net.Conn, addr string, config *ssh.ClientConfig) (ssh.Conn, <-chan ssh.NewChannel, <-chan *ssh.Request, bool, error) {
	var timedOut atomic.Bool
	timer := time.AfterFunc(t.ConnectTimeout, func() { timedOut.Store(true); _ = conn.Close() })
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, config)
	timer.Stop()
	stop()
	if err != nil {
		_ = conn.Close()
		return nil, nil, nil, timedOut.Load(), err
	}
	return c, chans, reqs, false, nil
}
