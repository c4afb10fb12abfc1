package main

import "testing"

// TestJobSubcommandReportsUsage: `eggo-controller job` without a phase
// fails with its usage, not by starting the controller.
func TestJobSubcommandReportsUsage(t *testing.T) {
	if code := realMain([]string{"job"}); code != 1 {
		t.Fatalf("eggo-controller job: exit %d, want 1", code)
	}
	if code := realMain([]string{"job", "plan"}); code != 1 {
		t.Fatalf("eggo-controller job plan without -cluster: exit %d, want 1", code)
	}
}
