package proctest

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStopLeavesNoProcess(t *testing.T) {
	log := filepath.Join(t.TempDir(), "sleep.log")
	p, err := Start("sleep", exec.Command("sleep", "60"), log)
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	ready := func() error {
		if polls++; polls < 3 {
			return errors.New("not yet")
		}
		return nil
	}
	if err := p.WaitReady(time.Millisecond, 10*time.Second, ready); err != nil || polls != 3 {
		t.Fatalf("WaitReady: %v after %d polls, want ready at the third", err, polls)
	}
	p.Stop()
	if err := p.Signal(syscall.Signal(0)); err == nil {
		t.Fatalf("pid %d still runs after Stop", p.Pid())
	}
}

func TestWaitReadyFailsWhenTheProcessExits(t *testing.T) {
	log := filepath.Join(t.TempDir(), "sh.log")
	p, err := Start("a failing server", exec.Command("sh", "-c", "echo bad flag >&2; exit 3"), log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	err = p.WaitReady(time.Millisecond, 10*time.Second, func() error { return errors.New("not yet") })
	if err == nil || !strings.Contains(err.Error(), "a failing server exited before it was ready (exit status 3)") {
		t.Fatalf("WaitReady of an exited process: %v", err)
	}
	if tail := LogTail("sh", log, 4); tail != "sh log "+log+":\nlag\n" {
		t.Fatalf("LogTail = %q, want the last 4 bytes of the log", tail)
	}
}

func TestWaitReadyGivesUpAfterTheTimeoutWithTheLastError(t *testing.T) {
	p, err := Start("sleep", exec.Command("sleep", "60"), filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	err = p.WaitReady(10*time.Millisecond, 100*time.Millisecond, func() error { return errors.New("503 starting") })
	if err == nil || !strings.Contains(err.Error(), "sleep not ready after 100ms: 503 starting") {
		t.Fatalf("WaitReady past its timeout: %v", err)
	}
}
