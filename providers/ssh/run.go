package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

// stderrTailBytes bounds the stderr kept for an ExitError.
const stderrTailBytes = 4096

// Run runs c.Cmd with sh -c in its own session (under sudo -n when the
// target says so). Cancelling ctx kills the command's whole process group
// on the host.
func (c *Conn) Run(ctx context.Context, cmd providers.Command) error {
	return c.run(ctx, cmd, c.sudo())
}

// sudo reports whether commands need sudo: asked for, and not root already.
func (c *Conn) sudo() bool { return c.target.Sudo && c.target.User != "root" }

func (c *Conn) run(ctx context.Context, cmd providers.Command, sudo bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: command %q not started: %w", c.target.Name, cmd.Cmd, err)
	}
	s, release, err := c.session(ctx, c.sessions)
	if err != nil {
		return fmt.Errorf("%s: command %q: %w", c.target.Name, cmd.Cmd, err)
	}
	defer release()

	tail := &providers.TailBuffer{Max: stderrTailBytes}
	var stderr io.Writer = tail
	if cmd.Stderr != nil {
		stderr = io.MultiWriter(tail, cmd.Stderr)
	}
	pg := newPgidWriter(stderr)
	s.Stdin, s.Stdout, s.Stderr = cmd.Stdin, cmd.Stdout, pg
	if err := s.Start(remoteCommand(cmd.Cmd, sudo)); err != nil {
		return fmt.Errorf("%s: start command %q: %w", c.target.Name, cmd.Cmd, err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err = <-done:
		pg.Close()
	case <-ctx.Done():
		c.kill(s, pg, sudo)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return fmt.Errorf("%s: command %q cancelled: %w", c.target.Name, cmd.Cmd, ctx.Err())
	}
	return c.result(cmd, err, tail, sudo)
}

// kill stops a cancelled command: KILL to the session's process (delivered
// by sshd as the login user), then, because that process may be sudo or a
// shell with children, kill -9 of the command's whole process group from a
// second session (under sudo when the command ran under it).
func (c *Conn) kill(s *ssh.Session, pg *pgidWriter, sudo bool) {
	defer s.Close()
	_ = s.Signal(ssh.SIGKILL)
	pgid := pg.wait(2 * time.Second)
	if pgid <= 1 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ks, release, err := c.session(ctx, c.killers)
	if err != nil {
		return
	}
	defer release()
	stop := context.AfterFunc(ctx, func() { _ = ks.Close() })
	defer stop()
	_ = ks.Run(killCommand(pgid, sudo))
}

// result turns a finished session's error into eggo's errors.
func (c *Conn) result(cmd providers.Command, err error, tail *providers.TailBuffer, sudo bool) error {
	if err == nil {
		return nil
	}
	var exit *ssh.ExitError
	if !errors.As(err, &exit) {
		var missing *ssh.ExitMissingError
		if errors.As(err, &missing) {
			return fmt.Errorf("%s: command %q: the connection ended before the command reported its exit status", c.target.Name, cmd.Cmd)
		}
		return fmt.Errorf("%s: command %q: %w", c.target.Name, cmd.Cmd, err)
	}
	stderr := tail.String()
	if sudo && exit.ExitStatus() == 1 && sudoRefused(stderr) {
		return fmt.Errorf("%s: sudo refused to run %q without a password for user %q (%s): eggo runs sudo -n, so allow it with a NOPASSWD rule in /etc/sudoers.d",
			c.target.Name, cmd.Cmd, c.target.User, lastLine(stderr))
	}
	e := &providers.ExitError{Host: c.target.Name, Cmd: cmd.Cmd, Code: exit.ExitStatus()}
	if exit.Signal() != "" {
		e.Code, e.Signal = -1, exit.Signal()
	}
	if cmd.Stderr == nil {
		e.Stderr = stderr
	}
	return e
}

func sudoRefused(stderr string) bool {
	for _, s := range []string{"sudo: a password is required", "sudo: a terminal is required", "is not in the sudoers file", "is not allowed to execute"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
