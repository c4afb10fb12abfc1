package hookrun

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

// stamp is a shell command appending "NAME UNIX-NANOS" to file.
func stamp(file, name string) string {
	return "echo " + name + " $(date +%s%N) >> " + shell.Quote(file)
}

// stamps reads the times a script wrote with stamp.
func stamps(t *testing.T, file string) map[string]time.Time {
	t.Helper()
	got := map[string]time.Time{}
	for _, l := range lines(readFile(t, file)) {
		name, ns, _ := strings.Cut(l, " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			t.Fatalf("stamp %q: %v", l, err)
		}
		got[name] = time.Unix(0, n)
	}
	return got
}

// within fails unless lo <= d <= hi. The lower bound is the semantics (not
// stopped before the limit); upper bounds leave seconds of slack for a
// loaded machine while still failing a hook that is never stopped.
func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi {
		t.Errorf("%s took %v, want %v to %v", what, d, lo, hi)
	}
}

func TestTimeLimitSendsTERMToTheGroup(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		m := marker(t)
		times := filepath.Join(t.TempDir(), "times")
		// A child sleeps in the background: TERM must reach the whole
		// group, not only the script's shell.
		s := spec(t, stamp(times, "start")+"\necho started\nsleep 30 &\nwait\n")
		s.Args = []string{m}
		s.Timeout, s.Grace = time.Second, time.Second
		o := Run(context.Background(), conn, "node-a", s)
		a := o.Attempts[0]
		if o.Decision != DecisionAbort || a.Signal != "TERM" || !a.TimedOut || a.ExitCode != -1 {
			t.Fatalf("attempt %+v", a)
		}
		within(t, "script start to its end", a.Finish.Sub(a.Start), time.Second, time.Hour)
		within(t, "script start to its end", a.Finish.Sub(stamps(t, times)["start"]), 0, 4*time.Second)
		if !strings.Contains(o.Err.Error(), "timed out after 1s") || !strings.Contains(o.Err.Error(), "SIGTERM") || a.Output != "started" {
			t.Errorf("error %v, output %q", o.Err, a.Output)
		}
		noProcessesLeft(t, m)
		tempDirEmpty(t, s.TempDir)
	})
}

func TestTrappedTERMGetsKILLAfterTheGrace(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		m := marker(t)
		times := filepath.Join(t.TempDir(), "times")
		s := spec(t, stamp(times, "start")+"\ntrap '"+strings.ReplaceAll(stamp(times, "term"), "'", `'\''`)+"; echo got TERM' TERM\nwhile :; do sleep 0.05; done\n")
		s.Args = []string{m}
		s.Timeout, s.Grace = time.Second, time.Second
		o := Run(context.Background(), conn, "node-a", s)
		a := o.Attempts[0]
		if a.Signal != "KILL" || !a.TimedOut || a.ExitCode != -1 {
			t.Fatalf("attempt %+v", a)
		}
		st := stamps(t, times)
		// Not before the limit, counted from before eggo started the
		// script (its own first stamp comes later, after its shell and
		// date started); the upper bound from the script's stamp.
		within(t, "start to TERM", st["term"].Sub(a.Start), time.Second, time.Hour)
		within(t, "start to TERM", st["term"].Sub(st["start"]), 0, 3*time.Second)
		// The grace counts from TERM's sending; the script's stamp of it
		// comes later (bash runs the trap when the loop's sleep ends, then
		// starts date), so from the stamp the KILL may come a little
		// before the whole second: seen 980 ms on a loaded machine.
		within(t, "TERM to the end (KILL)", a.Finish.Sub(st["term"]), 800*time.Millisecond, 4*time.Second)
		if !strings.Contains(a.Output, "got TERM") {
			t.Errorf("the script never saw TERM: output %q", a.Output)
		}
		if !strings.Contains(o.Err.Error(), "SIGKILL") {
			t.Errorf("error %v", o.Err)
		}
		noProcessesLeft(t, m)
		tempDirEmpty(t, s.TempDir)
	})
}

func TestCancelStopsTheScriptsOnTheHost(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		m := marker(t)
		s := spec(t, "trap 'exit 0' TERM\nwhile :; do sleep 0.05; done\n")
		s.Args = []string{m}
		s.Timeout, s.Grace, s.Policy = time.Minute, time.Second, Retry
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		o := Run(ctx, conn, "node-a", s)
		if o.Decision != DecisionAbort || len(o.Attempts) != 1 {
			t.Fatalf("outcome %+v", o)
		}
		// The watchdog sees the controller gone and sends TERM at once.
		start := time.Now()
		for time.Since(start) < 3*time.Second && (pgrep(m) || !dirEmpty(s.TempDir)) {
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("gone %v after Run returned", time.Since(start))
		noProcessesLeft(t, m)
		tempDirEmpty(t, s.TempDir)
	})
}

func TestLeftoversEndWithTheScript(t *testing.T) {
	transports(t, func(t *testing.T, conn providers.Conn) {
		m := marker(t)
		s := spec(t, "sh -c 'sleep 30; : $1' leftover "+m+" &\necho done\n")
		s.Args = []string{m}
		start := time.Now()
		o := Run(context.Background(), conn, "node-a", s)
		if o.Decision != DecisionOK || o.Attempts[0].Output != "done" {
			t.Fatalf("outcome %+v", o)
		}
		within(t, "a script leaving a child behind", time.Since(start), 0, 10*time.Second) // the child sleeps 30 s
		noProcessesLeft(t, m)
	})
}
