package nspawntest

import (
	"context"
	"testing"
	"time"
)

// TestWaitBootedBootsAgain: a node whose nspawn exited before its sshd
// answered (here: stopped, with its nspawn's exit already seen) is booted
// again and waited for, not reported failed.
func TestWaitBootedBootsAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a testbed: not with -short")
	}
	tb := UpForTestWith(t, Options{N: 1, Containers: true})
	name := tb.Hosts[0].Name
	if err := tb.Stop(name); err != nil {
		t.Fatal(err)
	}
	n, err := tb.rec.node(name)
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	close(exited)
	var retried bool
	logf := func(f string, a ...any) { retried = true; t.Logf(f, a...) }
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := tb.waitBooted(ctx, n, exited, tb.rec.save, logf); err != nil {
		t.Fatalf("a node whose nspawn had exited was not booted again: %v", err)
	}
	if !retried {
		t.Errorf("no retry was logged")
	}
	if out, err := tb.Exec(ctx, name, "echo up"); err != nil || out != "up\n" {
		t.Errorf("the node after the retry: %q, %v", out, err)
	}
}
