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

// TestHelp: -help prints the flags and succeeds, without starting the
// controller (the image's build runs it).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"run", "-help"}} {
		if code := realMain(args); code != 0 {
			t.Errorf("eggo-controller %v: exit %d, want 0", args, code)
		}
	}
}
