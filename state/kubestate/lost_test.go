package kubestate

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/state"
)

func (e *env) testForceUnlock(t *testing.T) {
	c := e.config(t, "demo")
	a, b := open(t, c), open(t, c)
	if err := b.ForceUnlock(bg(), "nothing"); err == nil || !strings.Contains(err.Error(), "not locked") {
		t.Fatalf("ForceUnlock of an unlocked state: %v", err)
	}
	held, err := a.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = b.ForceUnlock(bg(), "0123-not-the-id")
	if err == nil || !strings.Contains(err.Error(), held.Info.ID) || !strings.Contains(err.Error(), "not freeing it") {
		t.Fatalf("ForceUnlock with a wrong ID: %v", err)
	}
	if err := b.ForceUnlock(bg(), held.Info.ID); err != nil {
		t.Fatalf("ForceUnlock: %v", err)
	}
	l, err := b.Lock(bg(), state.LockInfo{Operation: "destroy"}, 0)
	if err != nil {
		t.Fatalf("Lock after ForceUnlock: %v", err)
	}
	defer l.Unlock()
	// The old holder's next renewal (a third of 3s) finds another holder.
	select {
	case <-held.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost() not closed 5s after the holder's Lease was taken")
	}
	if err := held.Held(); err == nil || !strings.Contains(err.Error(), "was taken by") {
		t.Fatalf("Held() of a force-unlocked lock: %v", err)
	}
	if err := held.Unlock(); err == nil || !strings.Contains(err.Error(), "no longer held the lock") {
		t.Fatalf("Unlock of a force-unlocked lock: %v", err)
	}
	if _, err := a.Lock(bg(), state.LockInfo{}, 0); !errors.As(err, new(*LockedError)) {
		t.Fatalf("the old holder's Unlock released the new holder's lock: %v", err)
	}
}

// testKilledHolder: a holder killed with SIGKILL cannot unlock; its lock
// stays held until its Lease expires (3s), then frees by itself.
func (e *env) testKilledHolder(t *testing.T) {
	c := e.config(t, "demo")
	cfgJSON, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), holderEnv+"="+string(cfgJSON))
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "locked ") {
		t.Fatalf("holder said %q (%v), want \"locked ID\"", line, err)
	}
	holderID := strings.TrimSpace(strings.TrimPrefix(line, "locked "))
	time.Sleep(1500 * time.Millisecond) // it has renewed once
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	killed := time.Now()

	s := open(t, c)
	_, err = s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.ID != holderID || locked.Holder.PID != child.Process.Pid {
		t.Fatalf("Lock just after the holder was killed: %v, want *LockedError naming pid %d", err, child.Process.Pid)
	}
	l, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 10*time.Second)
	if err != nil {
		t.Fatalf("Lock waiting for the killed holder's Lease to expire: %v", err)
	}
	defer l.Unlock()
	freed := time.Since(killed)
	if freed > 3*time.Second+2*time.Second {
		t.Fatalf("the lock freed %s after the kill, want within its 3s TTL", freed)
	}
	t.Logf("the lock freed %s after the holder was killed (TTL 3s)", freed)
}
