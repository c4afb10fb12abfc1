package statetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/state"
)

// A lock holder is the test binary run again with env set to a store's
// configuration (JSON): it opens that store, locks it, says
// "locked <lock ID>" on stdout and sleeps until it is killed. A test
// kills it with SIGKILL to see what a run that dies holding the lock
// leaves behind.

// RunOrHoldLock is a backend's TestMain: it runs the tests, or, when env
// is set, is a lock holder of the store open (the backend's Open) makes,
// locked with lock (its Store's Lock method).
func RunOrHoldLock[C, S, L any](m *testing.M, env string,
	open func(context.Context, C) (S, error),
	lock func(S, context.Context, state.LockInfo, time.Duration) (L, error),
) {
	if cfg := os.Getenv(env); cfg != "" {
		os.Exit(holdLock(cfg, open, lock))
	}
	os.Exit(m.Run())
}

func holdLock[C, S, L any](cfgJSON string,
	open func(context.Context, C) (S, error),
	lock func(S, context.Context, state.LockInfo, time.Duration) (L, error),
) int {
	var c C
	if err := json.Unmarshal([]byte(cfgJSON), &c); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 2
	}
	ctx := context.Background()
	s, err := open(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 2
	}
	// Completed here, as Lock would, so that the ID is known without
	// reading the lock back.
	info := state.LockInfo{Operation: "apply"}.Complete()
	if _, err := lock(s, ctx, info, 0); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 2
	}
	fmt.Printf("locked %s\n", info.ID)
	time.Sleep(time.Minute) // the test kills us long before
	return 3
}

// Holder is a lock holder process.
type Holder struct {
	ID  string // its lock ID
	PID int
	cmd *exec.Cmd
}

// StartHolder starts a lock holder of the store cfg configures (the test
// package's TestMain is RunOrHoldLock with env) and returns once it holds
// the lock. It is killed when t ends, if not before.
func StartHolder(t testing.TB, env string, cfg any) *Holder {
	t.Helper()
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), env+"="+string(cfgJSON))
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
	return &Holder{ID: strings.TrimSpace(strings.TrimPrefix(line, "locked ")), PID: child.Process.Pid, cmd: child}
}

// Kill kills the holder with SIGKILL, so that it cannot unlock, and
// returns when it was gone.
func (h *Holder) Kill(t testing.TB) time.Time {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.cmd.Wait()
	return time.Now()
}

// WantNamedIn fails t unless err, from a Lock just after the holder was
// killed, refuses the lock naming the holder.
func (h *Holder) WantNamedIn(t testing.TB, err error) {
	t.Helper()
	var locked *state.LeaseLockedError
	if !errors.As(err, &locked) || locked.Holder.ID != h.ID || locked.Holder.PID != h.PID {
		t.Fatalf("Lock just after the holder was killed: %v, want *LockedError naming pid %d", err, h.PID)
	}
}
