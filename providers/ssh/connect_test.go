package ssh

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/proctest"
	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

func TestBastion(t *testing.T) {
	noSSHAgent(t)
	target := newFixture(t, sshdtest.Options{})
	for _, tc := range []struct {
		name       string
		forwarding bool
		errHas     string
	}{{"forwarding allowed", true, ""}, {"forwarding forbidden", false, "AllowTcpForwarding"}} {
		t.Run(tc.name, func(t *testing.T) {
			jump := newFixture(t, sshdtest.Options{TCPForwarding: tc.forwarding})
			bt := jump.target(t)
			bt.Name = "jump"
			tt := target.target(t)
			tt.Bastion = &bt
			tt.Retries = -1
			c, err := DialWith(context.Background(), tt, Options{})
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), "node-a") {
					t.Fatalf("want an error naming node-a and %q, got %v", tc.errHas, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("dial through bastion: %v", err)
			}
			if got := output(t, c, "echo through"); got != "through" {
				t.Fatalf("got %q", got)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			// Close closed the bastion's connection too.
			if _, _, err := c.bastion.SendRequest("keepalive@openssh.com", true, nil); err == nil {
				t.Fatal("the bastion connection is still open after Close")
			}
		})
	}
}

func TestBastionHostKeyIsVerifiedToo(t *testing.T) {
	noSSHAgent(t)
	target := newFixture(t, sshdtest.Options{})
	jump := newFixture(t, sshdtest.Options{TCPForwarding: true})
	bt := jump.target(t)
	bt.Name = "jump"
	bt.KnownHostsFile = target.server.WriteKnownHosts(t) // lacks the jump host
	tt := target.target(t)
	tt.Bastion = &bt
	_, err := DialWith(context.Background(), tt, Options{})
	var hk *HostKeyError
	if !errors.As(err, &hk) || hk.Host != "jump" {
		t.Fatalf("want the bastion's host key refused, got %v", err)
	}
}

func TestRetriesRefusedPortWithBackoff(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.Port = proctest.RefusedPort(t)
	target.Retries = 2
	start := time.Now()
	_, err := DialWith(context.Background(), target, Options{Backoff: 150 * time.Millisecond})
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("dial of a closed port succeeded")
	}
	for _, w := range []string{"node-a", "127.0.0.1:" + itoa(target.Port), "refused", "after 3 attempts"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	// Waits of 150ms then 300ms between the three attempts.
	if elapsed < 450*time.Millisecond || elapsed > 5*time.Second {
		t.Fatalf("three attempts took %s, want about 450ms", elapsed)
	}
}

func TestContextCancelsRetryWait(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.Port = proctest.RefusedPort(t)
	target.Retries = 5
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := DialWith(ctx, target, Options{Backoff: 10 * time.Second})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Fatalf("want a prompt deadline error, got %v after %s", err, time.Since(start))
	}
}

func TestConnectTimeoutCoversHandshake(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	// A listener that accepts and never speaks SSH.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	target := f.target(t)
	target.Port = ln.Addr().(*net.TCPAddr).Port
	target.ConnectTimeout = 300 * time.Millisecond
	target.Retries = -1
	start := time.Now()
	_, err = DialWith(context.Background(), target, Options{})
	if err == nil || !strings.Contains(err.Error(), "timed out") || time.Since(start) > 3*time.Second {
		t.Fatalf("want a handshake timeout, got %v after %s", err, time.Since(start))
	}
}

func TestPoolOpensOneConnectionPerTarget(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	pool := providers.NewPool(nil)
	defer pool.Close()
	target := f.target(t)
	a, err := pool.Get(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pool.Get(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("two Gets returned different connections")
	}
	if got := output(t, a, "echo one"); got != "one" {
		t.Fatal(got)
	}
	if err := b.Run(context.Background(), providers.Command{Cmd: "true", Mutates: true}); err != nil {
		t.Fatal(err)
	}
	if s := pool.Stats(); s.Connections != 1 || s.Writes != 1 {
		t.Fatalf("stats %+v, want 1 connection and 1 write", s)
	}
	if n := strings.Count(f.server.Log(), "Accepted publickey"); n != 1 {
		t.Fatalf("sshd accepted %d logins, want 1", n)
	}
}

// A pool that failed to reach a host closes cleanly: the failed dial
// leaves no half-made connection behind (a typed nil once made Close
// panic after every plan with a dead host).
func TestPoolClosesAfterUnreachableHost(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.Port = proctest.RefusedPort(t)
	target.Retries = 0
	pool := providers.NewPool(nil)
	var unreachable *providers.UnreachableError
	if _, err := pool.Get(context.Background(), target); !errors.As(err, &unreachable) {
		t.Fatalf("Get of a closed port: %v, want an unreachable error", err)
	}
	if err := pool.Close(); err != nil {
		t.Fatalf("Close after a failed dial: %v", err)
	}
}
