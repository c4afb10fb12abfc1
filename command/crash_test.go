package command

import (
	"bytes"
	"strings"
	"testing"
)

// A panic is exit 1 with a short message, never Go's exit 2 (which
// -detailed-exitcode means "changes"); the stack goes to the debug log only.
func TestCrashIsExitOneWithTheStackInTheDebugLog(t *testing.T) {
	var errOut bytes.Buffer
	s := Streams{Err: &errOut, Env: []string{}}
	code := guard(s, func() int { panic("boom") })
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "eggo crashed: boom") || !strings.Contains(errOut.String(), "This is a bug in eggo") {
		t.Errorf("message %q", errOut.String())
	}
	if strings.Contains(errOut.String(), "goroutine ") {
		t.Errorf("the stack was shown without EGGO_LOG=debug:\n%s", errOut.String())
	}
	errOut.Reset()
	s.Env = []string{"EGGO_LOG=debug"}
	guard(s, func() int { panic("boom") })
	if !strings.Contains(errOut.String(), "crash_test.go") {
		t.Errorf("EGGO_LOG=debug: no stack in the log:\n%s", errOut.String())
	}
}
