package command

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// watchWriter is a goroutine-safe buffer that fires once when a line
// containing trigger is written.
type watchWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	fire    func()
	fired   bool
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.fired && strings.Contains(w.buf.String(), w.trigger) {
		w.fired = true
		go w.fire()
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestFirstInterruptFinishesRunningThenStops: Ctrl-C during apply lets the
// running change finish and be recorded, starts nothing new, exits 1; the
// next apply resumes with only what was left.
func TestFirstInterruptFinishesRunningThenStops(t *testing.T) {
	f := newFixture(t)
	f.bundle("opt/app/big.bin", strings.Repeat("x", 64<<20), 0o644)
	f.write("more.hcl", `node "n2" {
  address    = "127.0.0.2"
  roles      = ["worker"]
  depends_on = [node.n1]
}
`)
	sigs := make(chan os.Signal, 2)
	testSignals = sigs
	t.Cleanup(func() { testSignals = nil })
	out := &watchWriter{trigger: "host.n1: Creating...", fire: func() { sigs <- syscall.SIGINT }}
	var errOut bytes.Buffer
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	code := Run([]string{f.chdir(), "apply", "-auto-approve"}, Streams{In: strings.NewReader(""), Out: out, Err: &errOut, Env: f.env()})
	os.Chdir(wd)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "Interrupt received") || !strings.Contains(out.String(), "host.n1: Creation complete") {
		t.Fatalf("running change did not finish:\n%s\n%s", out.String(), errOut.String())
	}
	if strings.Contains(out.String(), "host.n2: Creating") || !strings.Contains(errOut.String(), "host.n2: not started") {
		t.Fatalf("n2 should not have started:\n%s\n%s", out.String(), errOut.String())
	}
	if got := f.mustRun(0, "state", "list").out; got != "host.n1\n" {
		t.Fatalf("state after interrupt = %q", got)
	}
	if r := f.mustRun(0, "apply", "-auto-approve"); !strings.Contains(r.out, "1 added") {
		t.Fatalf("resume:\n%s", r.out)
	}
}
