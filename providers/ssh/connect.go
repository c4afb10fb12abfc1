package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

// connect opens an authenticated client to t, directly or through bastion,
// retrying network failures up to t.Retries times with exponential backoff.
// Authentication and host key failures are final at once.
func connect(ctx context.Context, t providers.Target, o Options, bastion *ssh.Client) (*ssh.Client, error) {
	addr := net.JoinHostPort(t.Address, strconv.Itoa(t.Port))
	return withRetries(ctx, t, o, addr, func() (*ssh.Client, error) {
		return connectOnce(ctx, t, o, bastion, addr)
	})
}

// withRetries runs once until it succeeds, fails with anything but a
// networkError, or has been retried t.Retries times, waiting o.Backoff
// (doubled each time) in between.
func withRetries[T any](ctx context.Context, t providers.Target, o Options, addr string, once func() (T, error)) (T, error) {
	var zero T
	wait := o.Backoff
	for attempt := 0; ; attempt++ {
		v, err := once()
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return zero, fmt.Errorf("%s: connecting to %s: %w", t.Name, addr, ctx.Err())
		}
		var netErr *networkError
		if !errors.As(err, &netErr) || attempt >= t.Retries {
			if attempt > 0 {
				return zero, fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return zero, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return zero, fmt.Errorf("%s: connecting to %s: %w (last error: %v)", t.Name, addr, ctx.Err(), err)
		}
		wait *= 2
	}
}

// networkError marks a failure worth retrying: the host could not be
// reached, or the connection broke before authentication finished.
type networkError struct{ err error }

func (e *networkError) Error() string { return e.err.Error() }
func (e *networkError) Unwrap() error { return e.err }

func connectOnce(ctx context.Context, t providers.Target, o Options, bastion *ssh.Client, addr string) (*ssh.Client, error) {
	hk, err := hostKeyCheckFor(t, o, addr)
	if err != nil {
		return nil, err
	}
	a, err := authFor(t)
	if err != nil {
		return nil, err
	}
	// The agent is only needed for the handshake.
	defer a.Close()
	config := &ssh.ClientConfig{
		User:              t.User,
		Auth:              a.methods,
		HostKeyCallback:   hk.callback,
		HostKeyAlgorithms: hk.algorithms,
		Timeout:           t.ConnectTimeout,
	}

	conn, via, err := dialHop(ctx, t, bastion, addr)
	if err != nil {
		return nil, err
	}
	c, chans, reqs, timedOut, err := handshake(ctx, t, conn, addr, config)
	if err != nil {
		return nil, classifyHandshake(t, addr, via, a, err, timedOut)
	}
	if hk.accepted != nil {
		hk.accepted()
	}
	return ssh.NewClient(c, chans, reqs), nil
}

func classifyHandshake(t providers.Target, addr, via string, a *auth, err error, timedOut bool) error {
	var hk *HostKeyError
	switch {
	case errors.As(err, &hk):
		return hk
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("%s: authentication to %s%s as %q failed (tried %s): %w",
			t.Name, addr, via, t.User, strings.Join(a.tried, ", "), err)
	case timedOut:
		return &networkError{fmt.Errorf("%s: SSH handshake with %s%s timed out after %s", t.Name, addr, via, t.ConnectTimeout)}
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, net.ErrClosed), isNetError(err):
		return &networkError{fmt.Errorf("%s: connection to %s%s broke during the SSH handshake: %w", t.Name, addr, via, err)}
	}
	return fmt.Errorf("%s: SSH handshake with %s%s failed: %w", t.Name, addr, via, err)
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}
