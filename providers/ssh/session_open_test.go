package ssh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/providers"
)

// A host that answers keepalives but never a request for a new session
// (a CI run hung on one for 18 minutes) costs sessionOpenTimeout, then
// the connection is closed and the session's error says why.
func TestSessionOpenIsBounded(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
		if err != nil {
			return
		}
		go ssh.DiscardRequests(reqs) // keepalives are answered
		for range chans {            // session requests never are
		}
	}()
	client, err := ssh.Dial("tcp", l.Addr().String(), &ssh.ClientConfig{User: "root", HostKeyCallback: ssh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { sessionOpenTimeout = d }(sessionOpenTimeout)
	sessionOpenTimeout = 300 * time.Millisecond
	c := newConn(providers.Target{Name: "h", Address: "127.0.0.1"}, client, nil, 4)
	defer c.Close()

	done := make(chan error, 1)
	go func() {
		_, _, err := c.session(context.Background(), c.sessions)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1 answered no request for a new session in 300ms: the connection is closed") {
			t.Fatalf("session on a host that never answers: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session request still waits after 10s")
	}
	if _, _, err := client.SendRequest("keepalive@openssh.com", true, nil); err == nil {
		t.Error("the connection is still open")
	}
}
