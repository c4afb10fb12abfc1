package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

func TestRunExitCodesSignalsAndStderr(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	c := dial(t, f.target(t))
	for _, tc := range []struct {
		name      string
		cmd       string
		code      int
		signal    string
		stderrHas string
		ownStderr bool
	}{
		{name: "exit code", cmd: "exit 3", code: 3},
		{name: "stderr tail", cmd: "echo oops >&2; exit 5", code: 5, stderrHas: "oops"},
		{name: "caller keeps stderr", cmd: "echo mine >&2; exit 6", code: 6, ownStderr: true},
		{name: "killed by TERM", cmd: "kill -TERM $$", code: -1, signal: "TERM"},
		{name: "killed by KILL", cmd: "kill -KILL $$", code: -1, signal: "KILL"},
		{name: "syntax error", cmd: "if then fi", code: 2, stderrHas: "Syntax error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var own bytes.Buffer
			cmd := providers.Command{Cmd: tc.cmd}
			if tc.ownStderr {
				cmd.Stderr = &own
			}
			err := c.Run(context.Background(), cmd)
			var exit *providers.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("want *providers.ExitError, got %v", err)
			}
			if exit.Host != "node-a" || exit.Cmd != tc.cmd || exit.Code != tc.code || exit.Signal != tc.signal {
				t.Fatalf("got %+v", exit)
			}
			if !strings.Contains(exit.Stderr, tc.stderrHas) || strings.Contains(exit.Stderr, pgidMarker) {
				t.Errorf("stderr tail %q, want it to contain %q and no marker", exit.Stderr, tc.stderrHas)
			}
			if tc.ownStderr && (exit.Stderr != "" || own.String() != "mine\n") {
				t.Errorf("caller's stderr %q, ExitError.Stderr %q", own.String(), exit.Stderr)
			}
		})
	}
}

func TestRunStderrTailIsBounded(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	c := dial(t, f.target(t))
	err := c.Run(context.Background(), providers.Command{Cmd: "head -c 20000 /dev/zero | tr '\\0' x >&2; echo END >&2; exit 1"})
	var exit *providers.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("got %v", err)
	}
	if len(exit.Stderr) > stderrTailBytes || !strings.HasSuffix(exit.Stderr, "END") {
		t.Fatalf("stderr tail has %d bytes, ends %q", len(exit.Stderr), exit.Stderr[len(exit.Stderr)-10:])
	}
}

func TestRunQuotingStdinAndStreams(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	c := dial(t, f.target(t))
	got := output(t, c, `printf '%s|' "it's" 'a "b"' '$HOME' \\back`)
	if want := `it's|a "b"|$HOME|\back|`; got != want {
		t.Fatalf("quoting: got %q want %q", got, want)
	}
	var out, errOut bytes.Buffer
	err := c.Run(context.Background(), providers.Command{Cmd: "tr a-z A-Z; echo to-stderr >&2", Stdin: strings.NewReader("piped in"), Stdout: &out, Stderr: &errOut})
	if err != nil || out.String() != "PIPED IN" || errOut.String() != "to-stderr\n" {
		t.Fatalf("stdin/stdout/stderr: %v, %q, %q", err, out.String(), errOut.String())
	}
}

func TestSudo(t *testing.T) {
	noSSHAgent(t)
	sudoer := sshdtest.AddUser(t, true)
	plain := sshdtest.AddUser(t, false)
	f := newFixture(t, sshdtest.Options{Users: []string{sudoer.Name, plain.Name}})
	for _, tc := range []struct {
		name   string
		user   string
		sudo   bool
		want   string
		errHas []string
	}{
		{name: "no sudo stays the user", user: sudoer.Name, want: "not-root"},
		{name: "sudo makes root", user: sudoer.Name, sudo: true, want: "0"},
		{name: "sudo without NOPASSWD fails clearly", user: plain.Name, sudo: true, errHas: []string{"node-a", "sudo", plain.Name, "NOPASSWD"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := f.target(t)
			target.User, target.Sudo = tc.user, tc.sudo
			c := dial(t, target)
			var out bytes.Buffer
			err := c.Run(context.Background(), providers.Command{Cmd: `u=$(id -u); [ "$u" = 0 ] && echo 0 || echo not-root`, Stdout: &out})
			if tc.errHas != nil {
				if err == nil {
					t.Fatalf("ran as %q", out.String())
				}
				for _, w := range tc.errHas {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil || strings.TrimSpace(out.String()) != tc.want {
				t.Fatalf("got %q, %v; want %q", out.String(), err, tc.want)
			}
		})
	}
}

func TestCancelKillsRemoteProcessGroup(t *testing.T) {
	noSSHAgent(t)
	sudoer := sshdtest.AddUser(t, true)
	f := newFixture(t, sshdtest.Options{Users: []string{"root", sudoer.Name}})
	for i, tc := range []struct {
		name string
		user string
		sudo bool
	}{{"as root", "root", false}, {"under sudo", sudoer.Name, true}} {
		t.Run(tc.name, func(t *testing.T) {
			target := f.target(t)
			target.User, target.Sudo = tc.user, tc.sudo
			c := dial(t, target)
			// A child in the background and one in the foreground: both
			// must die, not only the shell sshd started.
			marker := fmt.Sprintf("4242.%d%d", time.Now().UnixNano()%1000, i)
			cmd := fmt.Sprintf("sleep %s & sleep %s; wait", marker, marker)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx, providers.Command{Cmd: cmd}) }()
			waitFor(t, func() bool { return countProcs("sleep "+marker) == 2 }, "both sleeps to start")
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "node-a") {
					t.Fatalf("want a cancellation error naming the host, got %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after cancel")
			}
			waitFor(t, func() bool { return countProcs("sleep "+marker) == 0 }, "the sleeps to die")
			// The connection is still usable.
			if got := output(t, c, "echo alive"); got != "alive" {
				t.Fatalf("after cancel: %q", got)
			}
		})
	}
}

func TestConcurrentRunsShareOneConnection(t *testing.T) {
	noSSHAgent(t)
	// A stock MaxSessions: more concurrent sessions than this would be
	// refused, so the Conn's bound is what lets 16 concurrent runs succeed.
	f := newFixture(t, sshdtest.Options{MaxSessions: 10})
	c := dial(t, f.target(t))
	var wg sync.WaitGroup
	errs := make([]error, 16)
	outs := make([]string, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			errs[i] = c.Run(context.Background(), providers.Command{Cmd: fmt.Sprintf("sleep 0.1; echo %d", i), Stdout: &out})
			outs[i] = strings.TrimSpace(out.String())
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil || outs[i] != itoa(i) {
			t.Fatalf("run %d: %q, %v", i, outs[i], errs[i])
		}
	}
	if n := strings.Count(f.server.Log(), "Accepted publickey"); n != 1 {
		t.Fatalf("sshd accepted %d logins, want 1 (one multiplexed connection)", n)
	}
}

func countProcs(pattern string) int {
	out, _ := exec.Command("pgrep", "-f", "-x", pattern).Output()
	return len(strings.Fields(string(out)))
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A host that still counts a session against its MaxSessions — a loaded sshd
// handles a channel's close late, or its bound is below eggo's — refuses the
// next one "open failed"; the run asks again until a place is free.
func TestRunWaitsForASessionTheHostRefused(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{MaxSessions: 1})
	c, err := DialWith(context.Background(), f.target(t), Options{MaxSessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	long := make(chan error, 1)
	go func() { long <- c.Run(context.Background(), providers.Command{Cmd: "sleep 1"}) }()
	waitFor(t, func() bool { return countProcs("sleep 1") > 0 }, "the first session's command")
	if got := output(t, c, "echo second"); got != "second" {
		t.Fatalf("second session: %q", got)
	}
	if err := <-long; err != nil {
		t.Fatal(err)
	}

	// Refused for longer than the bound: the error says why.
	defer func(d time.Duration) { refusedSessionRetry = d }(refusedSessionRetry)
	refusedSessionRetry = 300 * time.Millisecond
	go func() { long <- c.Run(context.Background(), providers.Command{Cmd: "sleep 2"}) }()
	waitFor(t, func() bool { return countProcs("sleep 2") > 0 }, "the long session's command")
	err = c.Run(context.Background(), providers.Command{Cmd: "true"})
	if err == nil || !strings.Contains(err.Error(), "MaxSessions below eggo's 2") {
		t.Fatalf("a session refused past the bound: %v", err)
	}
	if err := <-long; err != nil {
		t.Fatal(err)
	}
}
