package eggotest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fatalRecorder keeps a test's fatal message and ends its goroutine, as
// testing.T does.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper()             {}
func (r *fatalRecorder) Logf(string, ...any) {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// waitFor runs waitBackground for version as a test would and returns its
// fatal message ("" when it returned).
func waitFor(version string) string {
	r := &fatalRecorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		waitBackground(r, version)
	}()
	<-done
	return r.fatal
}

// TestWaitBackground: a test waits while its bundle builds, goes on once
// it is built, and fails with the build's log when it failed or when the
// builder died without finishing; another bundle's build is no reason to
// wait.
func TestWaitBackground(t *testing.T) {
	pollEvery = 20 * time.Millisecond
	dir := t.TempDir()
	t.Setenv(BundlesPendingEnv, dir)
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pid", strconv.Itoa(os.Getpid()))
	write("v1.37.2.building", "")
	write("v1.37.2.log", "bundle: kube v1.37.2: go build\n")
	go func() {
		time.Sleep(200 * time.Millisecond)
		os.Remove(filepath.Join(dir, "v1.37.2.building"))
	}()
	began := time.Now()
	if msg := waitFor("v1.37.2"); msg != "" || time.Since(began) < 200*time.Millisecond {
		t.Errorf("while v1.37.2 built: returned after %s with %q, want a wait until it was built", time.Since(began), msg)
	}
	if msg := waitFor("v1.36.5"); msg != "" {
		t.Errorf("a bundle not building in the background: %q", msg)
	}
	write("v1.31.4.failed", "")
	write("v1.31.4.log", "go: module lookup disabled\n")
	if msg := waitFor("v1.31.4"); !strings.Contains(msg, "the v1.31.4 bundle did not build") || !strings.Contains(msg, "module lookup disabled") {
		t.Errorf("a failed build: %q, want the failure and its log", msg)
	}
	write("v1.37.2.building", "")
	write("pid", "999999999") // no such process
	if msg := waitFor("v1.37.2"); !strings.Contains(msg, "stopped without finishing") {
		t.Errorf("a builder gone: %q, want the test failed", msg)
	}
}
