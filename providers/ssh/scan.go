package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

// errKeyScanned ends a scan's handshake once the host key is in hand, before
// any authentication is attempted.
var errKeyScanned = errors.New("host key captured; the scan stops before authentication")

// ScanHostKey returns the key t presents, as ssh-keyscan does: it completes
// the key exchange (through t.Bastion when set, the bastion verified as
// usual) and disconnects without authenticating. The key is NOT verified:
// it is what `eggo state rekey-host` shows and pins. When t has a host_key,
// or else o.Pins holds a pin for t, that key's type is asked for first, so
// the scan returns the key a connection would be checked against. Network
// failures are retried like a connect, each attempt bounded by t's connect
// timeout.
func ScanHostKey(ctx context.Context, t providers.Target, o Options) (ssh.PublicKey, error) {
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
	}
	bastion, err := dialBastion(ctx, t, o)
	if err != nil {
		return nil, err
	}
	if bastion != nil {
		defer bastion.Close()
	}
	t = withDefaults(t)
	configured, err := configuredKey(t)
	if err != nil {
		return nil, err
	}
	algorithms := preferredHostKeyAlgorithms
	if configured != nil {
		algorithms = pinAlgorithms(configured)
	} else if o.Pins != nil {
		if pin, ok := o.Pins.Pinned(t.Name); ok {
			algorithms = pinAlgorithms(pin)
		}
	}
	addr := net.JoinHostPort(t.Address, strconv.Itoa(t.Port))
	return withRetries(ctx, t, o, addr, func() (ssh.PublicKey, error) {
		return scanOnce(ctx, t, bastion, addr, algorithms)
	})
}

func scanOnce(ctx context.Context, t providers.Target, bastion *ssh.Client, addr string, algorithms []string) (ssh.PublicKey, error) {
	var (
		mu  sync.Mutex
		key ssh.PublicKey
	)
	config := &ssh.ClientConfig{
		User: t.User,
		HostKeyCallback: func(_ string, _ net.Addr, k ssh.PublicKey) error {
			mu.Lock()
			key = k
			mu.Unlock()
			return errKeyScanned
		},
		HostKeyAlgorithms: algorithms,
		Timeout:           t.ConnectTimeout,
	}
	conn, via, err := dialHop(ctx, t, bastion, addr)
	if err != nil {
		return nil, err
	}
	c, _, _, timedOut, err := handshake(ctx, t, conn, addr, config)
	if err == nil {
		// Unreachable: the callback always aborts. Never leave a session open.
		_ = c.Close()
		return nil, fmt.Errorf("%s: scanning the host key of %s%s: the handshake did not stop at the host key", t.Name, addr, via)
	}
	mu.Lock()
	defer mu.Unlock()
	if key != nil && errors.Is(err, errKeyScanned) {
		return key, nil
	}
	return nil, classifyHandshake(t, addr, via, &auth{}, err, timedOut)
}
