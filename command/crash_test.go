package command

import (
	"bytes"
	"fmt"
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
	if !strings.Contains(errOut.String(), "eggo crashed: panic(string)") || !strings.Contains(errOut.String(), "This is a bug in eggo") {
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

// A panic's value may have been formatted from a secret: neither the
// message nor the debug log prints it; a runtime error's text (which names
// an operation, not data) is shown.
func TestCrashNeverPrintsThePanicValue(t *testing.T) {
	var errOut bytes.Buffer
	s := Streams{Err: &errOut, Env: []string{"EGGO_LOG=debug"}}
	guard(s, func() int { panic(fmt.Errorf("bad key %s", "-----BEGIN PRIVATE KEY----- c2VjcmV0")) })
	if strings.Contains(errOut.String(), "c2VjcmV0") || !strings.Contains(errOut.String(), "panic(*errors.errorString)") {
		t.Errorf("the panic's value was printed, or its type not:\n%s", errOut.String())
	}
	errOut.Reset()
	guard(s, func() int {
		var m map[string]int
		m["x"] = 1
		return 0
	})
	if !strings.Contains(errOut.String(), "eggo crashed: assignment to entry in nil map") {
		t.Errorf("a runtime error is not named:\n%s", errOut.String())
	}
}
