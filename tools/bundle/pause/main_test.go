package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPauseWaitsForSignal builds the real binary the way the bundle does and
// checks it stays up until SIGTERM or SIGINT, then exits 0.
func TestPauseWaitsForSignal(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pause")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			t.Fatalf("pause exited on its own before %v: %v", sig, err)
		case <-time.After(300 * time.Millisecond):
		}
		// SIGCHLD must not stop it: a pod's processes come and go.
		if err := cmd.Process.Signal(syscall.SIGCHLD); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			t.Fatalf("pause exited on SIGCHLD: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("pause after %v: %v, want exit status 0", sig, err)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("pause still running 5s after %v", sig)
		}
	}
}
