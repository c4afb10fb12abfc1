package ssh

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/proctest"
	"github.com/eggo-project/eggo/internal/harness/sshdtest"
)

func TestScanHostKeyReturnsTheKeyWithoutLoggingIn(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.KnownHostsFile = "/nonexistent/known_hosts" // a scan verifies nothing
	key, err := ScanHostKey(context.Background(), target, Options{})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	if !sameKey(key, f.server.HostPublicKey()) {
		t.Fatalf("scanned %s, server has %s", Fingerprint(key), Fingerprint(f.server.HostPublicKey()))
	}
	// sshd logs the connection; give it a moment, then check it saw no login.
	waitForLog(t, f.server, "Connection from 127.0.0.1")
	if log := f.server.Log(); strings.Contains(log, "Accepted") || strings.Contains(log, "Failed") {
		t.Fatalf("the scan authenticated:\n%s", log)
	}
}

func TestScanHostKeyAsksForThePinnedKeyType(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{ExtraHostKeys: []string{"rsa", "ecdsa"}})
	for _, key := range f.server.HostPublicKeys() {
		pins := newPins(map[string]ssh.PublicKey{"node-a": key})
		got, err := ScanHostKey(context.Background(), f.target(t), Options{Pins: pins})
		if err != nil {
			t.Fatalf("scan with a %s pin: %v", key.Type(), err)
		}
		if !sameKey(got, key) {
			t.Errorf("with a %s pin the scan returned %s", key.Type(), got.Type())
		}
	}
	if len(f.server.HostPublicKeys()) != 3 {
		t.Fatal("the server does not hold three keys")
	}
}

func TestScanHostKeyThroughBastion(t *testing.T) {
	noSSHAgent(t)
	target := newFixture(t, sshdtest.Options{})
	jump := newFixture(t, sshdtest.Options{TCPForwarding: true})
	bt := jump.target(t)
	bt.Name = "jump"
	tt := target.target(t)
	tt.Bastion = &bt
	key, err := ScanHostKey(context.Background(), tt, Options{Pins: newPins(nil)})
	if err != nil {
		t.Fatalf("scan through bastion: %v", err)
	}
	if !sameKey(key, target.server.HostPublicKey()) {
		t.Fatal("the scan through the bastion returned another key")
	}
	if strings.Contains(target.server.Log(), "Accepted") {
		t.Fatal("the scan logged in to the target")
	}

	// The bastion itself is verified as usual.
	bt.KnownHostsFile = target.server.WriteKnownHosts(t)
	if _, err := ScanHostKey(context.Background(), tt, Options{}); err == nil || !namesWord(err.Error(), "jump") { // the fingerprint in the error can hold "jump"
		t.Fatalf("want the bastion's unknown key refused, got %v", err)
	}
}

func TestScanHostKeyOfAnUnreachableHostNamesIt(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.Port = proctest.RefusedPort(t)
	target.Retries = 1
	_, err := ScanHostKey(context.Background(), target, Options{Backoff: 50 * time.Millisecond})
	for _, want := range []string{"node-a", "127.0.0.1:" + itoa(target.Port), "refused", "after 2 attempts"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
}

func TestScanHostKeyHonoursConnectTimeout(t *testing.T) {
	noSSHAgent(t)
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
			defer c.Close() // accepts and never speaks SSH
		}
	}()
	f := newFixture(t, sshdtest.Options{})
	target := f.target(t)
	target.Port = ln.Addr().(*net.TCPAddr).Port
	target.ConnectTimeout = 300 * time.Millisecond
	target.Retries = -1
	start := time.Now()
	_, err = ScanHostKey(context.Background(), target, Options{})
	if err == nil || !strings.Contains(err.Error(), "timed out") || time.Since(start) > 3*time.Second {
		t.Fatalf("want a handshake timeout, got %v after %s", err, time.Since(start))
	}
}

// waitForLog waits up to two seconds for sshd to log want.
func waitForLog(t *testing.T, s *sshdtest.Server, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(s.Log(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("sshd never logged %q:\n%s", want, s.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
