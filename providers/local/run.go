package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/eggo-project/eggo/providers"
)

// stderrTailBytes bounds the stderr kept for an ExitError.
const stderrTailBytes = 4096

// pipeGrace is how long Run waits, after the shell exits, for background
// processes that still hold its output open.
const pipeGrace = 5 * time.Second

// Run runs cmd.Cmd with sh -c (under sudo -n when needed) in a new process
// group; cancelling ctx kills the whole group.
func (c *Conn) Run(ctx context.Context, cmd providers.Command) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: command %q not started: %w", c.name, cmd.Cmd, err)
	}
	args := []string{"sh", "-c", cmd.Cmd}
	if c.sudo {
		args = append([]string{"sudo", "-n"}, args...)
	}
	x := exec.Command(args[0], args[1:]...)
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.WaitDelay = pipeGrace
	tail := &providers.TailBuffer{Max: stderrTailBytes}
	x.Stdin, x.Stdout, x.Stderr = cmd.Stdin, cmd.Stdout, io.Writer(tail)
	if cmd.Stderr != nil {
		x.Stderr = io.MultiWriter(tail, cmd.Stderr)
	}
	if err := x.Start(); err != nil {
		return fmt.Errorf("%s: start command %q: %w", c.name, cmd.Cmd, err)
	}
	done := make(chan error, 1)
	go func() { done <- x.Wait() }()
	select {
	case err := <-done:
		return c.result(cmd, err, tail)
	case <-ctx.Done():
		// The group id is the shell's pid (Setpgid).
		_ = syscall.Kill(-x.Process.Pid, syscall.SIGKILL)
		<-done
		return fmt.Errorf("%s: command %q cancelled: %w", c.name, cmd.Cmd, ctx.Err())
	}
}

func (c *Conn) result(cmd providers.Command, err error, tail *providers.TailBuffer) error {
	if err == nil || errors.Is(err, exec.ErrWaitDelay) {
		// ErrWaitDelay: the command succeeded; a background child kept
		// its output open past the grace period.
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("%s: command %q: %w", c.name, cmd.Cmd, err)
	}
	stderr := tail.String()
	if c.sudo && exit.ExitCode() == 1 && strings.Contains(stderr, "sudo: a password is required") {
		return fmt.Errorf("%s: sudo refused to run %q without a password: eggo runs sudo -n, so allow it with a NOPASSWD rule", c.name, cmd.Cmd)
	}
	e := &providers.ExitError{Host: c.name, Cmd: cmd.Cmd, Code: exit.ExitCode()}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Code, e.Signal = -1, signalName(ws.Signal())
	}
	if cmd.Stderr == nil {
		e.Stderr = stderr
	}
	return e
}

// signalName spells a signal as SSH does ("TERM"), so both transports
// report the same thing.
func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "ABRT", syscall.SIGALRM: "ALRM", syscall.SIGFPE: "FPE", syscall.SIGHUP: "HUP",
		syscall.SIGILL: "ILL", syscall.SIGINT: "INT", syscall.SIGKILL: "KILL", syscall.SIGPIPE: "PIPE",
		syscall.SIGQUIT: "QUIT", syscall.SIGSEGV: "SEGV", syscall.SIGTERM: "TERM", syscall.SIGUSR1: "USR1",
		syscall.SIGUSR2: "USR2",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(s))
}
