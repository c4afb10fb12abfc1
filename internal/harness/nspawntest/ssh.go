package nspawntest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Dial opens an SSH connection to a node as root with the testbed key,
// checking the host key pinned in the testbed's known_hosts.
func (tb *Testbed) Dial(ctx context.Context, name string) (*ssh.Client, error) {
	h, err := tb.Host(name)
	if err != nil {
		return nil, err
	}
	signer, err := loadSigner(h.KeyFile)
	if err != nil {
		return nil, err
	}
	hostKeys, err := knownhosts.New(h.KnownHostsFile)
	if err != nil {
		return nil, fmt.Errorf("known_hosts %s: %w", h.KnownHostsFile, err)
	}
	addr := net.JoinHostPort(h.Address, strconv.Itoa(h.Port))
	d := net.Dialer{Timeout: 3 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	} else {
		conn.SetDeadline(time.Now().Add(10 * time.Second))
	}
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
		User:            h.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hostKeys,
		Timeout:         5 * time.Second,
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("node %s: ssh %s: %w", name, addr, err)
	}
	conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// Exec runs a shell command on a node over SSH and returns its stdout. A
// failure names the node and carries the tail of stderr.
func (tb *Testbed) Exec(ctx context.Context, name, command string) (string, error) {
	client, err := tb.Dial(ctx, name)
	if err != nil {
		return "", err
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return "", fmt.Errorf("node %s: %w", name, err)
	}
	defer sess.Close()
	var stdout, stderr bytes.Buffer
	sess.Stdout, sess.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	go func() { done <- sess.Run(command) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		client.Close()
		return stdout.String(), fmt.Errorf("node %s: %q: %w", name, command, ctx.Err())
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("node %s: %q: %w: %s", name, command, err, tailLines(stderr.String(), 5))
	}
	return stdout.String(), nil
}

// waitSSH waits until the node's sshd accepts the test key and runs a
// command; the error shows the tail of the node's systemd-nspawn log.
func (tb *Testbed) waitSSH(ctx context.Context, name string, exited <-chan struct{}) error {
	var last error
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := tb.Exec(attempt, name, "true")
		cancel()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %s: sshd did not answer (%v); last error: %v\n--- tail of %s ---\n%s",
				name, ctx.Err(), last, logPath(tb.Dir, name), logTail(tb.Dir, name))
		case <-exited:
			return fmt.Errorf("node %s: %w; last error: %v\n--- tail of %s ---\n%s",
				name, errExitedEarly, last, logPath(tb.Dir, name), logTail(tb.Dir, name))
		case <-time.After(200 * time.Millisecond):
		}
	}
}
