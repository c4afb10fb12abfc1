package ssh

import (
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

// Keepalive settings: a host that answers no keepalive for
// keepaliveInterval × keepaliveMisses is dead, and its connection is
// closed so every command and copy on it fails at once instead of
// waiting minutes for TCP to give up (a cable pulled mid-copy).
var (
	keepaliveInterval = 3 * time.Second
	keepaliveMisses   = 3
)

// keepalive pings the server until the client closes or stops answering.
// lost is set when it closed the connection for a dead host.
func keepalive(client *ssh.Client, done <-chan struct{}, lost *atomic.Bool) {
	t := time.NewTicker(keepaliveInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		reply := make(chan error, 1)
		go func() {
			_, _, err := client.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		select {
		case <-done:
			return
		case err := <-reply:
			if err != nil {
				return // the connection is already gone
			}
		case <-time.After(keepaliveInterval * time.Duration(keepaliveMisses)):
			lost.Store(true)
			_ = client.Close()
			return
		}
	}
}
