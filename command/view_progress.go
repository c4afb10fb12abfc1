package command

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// progressView prints apply progress for people: one line per event, each
// with the resource's elapsed time, so a slow copy shows it is alive. An
// address may come from the state and a message may quote what a node
// printed: both are made safe (addr, text.Safe) before they are shown.
type progressView struct {
	mu      sync.Mutex
	out     io.Writer
	col     colorizer
	starts  map[string]time.Time
	running map[string]*runningStep // changes in flight, for the heartbeat
	now     func() time.Time
}

type runningStep struct {
	action resources.Action
	last   string // the last progress message
}

func newProgressView(out io.Writer, col colorizer) *progressView {
	return &progressView{out: out, col: col, starts: map[string]time.Time{}, running: map[string]*runningStep{}, now: time.Now}
}

// heartbeat prints, every interval, a line for each change still running
// — so a long copy shows it is alive — until stop is closed.
func (v *progressView) heartbeat(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			v.beat()
		}
	}
}

var stillVerbs = map[resources.Action]string{
	resources.Create:     "Still creating...",
	resources.Update:     "Still modifying...",
	resources.Delete:     "Still destroying...",
	resources.Replace:    "Still replacing...",
	engine.HookRunAction: "Still running...",
}

func (v *progressView) beat() {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, addr := range slices.Sorted(maps.Keys(v.running)) {
		r := v.running[addr]
		line := fmt.Sprintf("%s: %s [%s elapsed]", safeAddr(addr), stillVerbs[r.action], v.elapsed(addr))
		if r.last != "" {
			line += " " + r.last
		}
		fmt.Fprintln(v.out, line)
	}
}

var verbs = map[resources.Action][2]string{
	resources.Create:  {"Creating...", "Creation complete"},
	resources.Update:  {"Modifying...", "Modifications complete"},
	resources.Delete:  {"Destroying...", "Destruction complete"},
	resources.Replace: {"Replacing...", "Replacement complete"},
	// A hook step: "hook.drain[\"pre-join/w1\"]: Running..." then
	// "Run complete" (or, under continue, the warning Progress printed).
	engine.HookRunAction: {"Running...", "Run complete"},
}

func (v *progressView) Refreshing(addr string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fmt.Fprintf(v.out, "%s: Refreshing state...\n", safeAddr(addr))
}

func (v *progressView) PreApply(c *resources.Change) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.starts[c.Addr] = v.now()
	v.running[c.Addr] = &runningStep{action: c.Action}
	fmt.Fprintf(v.out, "%s: %s\n", v.col.c(bold, safeAddr(c.Addr)), verbs[c.Action][0])
}

func (v *progressView) Progress(addr, msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	msg = text.Safe(msg)
	if r := v.running[addr]; r != nil {
		r.last = msg
	}
	fmt.Fprintf(v.out, "%s: %s… %s\n", safeAddr(addr), msg, v.elapsed(addr))
}

func (v *progressView) PostApply(c *resources.Change, err error, took time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.running, c.Addr)
	if err != nil {
		fmt.Fprintf(v.out, "%s: %s after %s\n", v.col.c(red, safeAddr(c.Addr)), v.col.c(red, "failed"), roundDur(took))
		return
	}
	fmt.Fprintf(v.out, "%s: %s after %s\n", v.col.c(bold, safeAddr(c.Addr)), verbs[c.Action][1], roundDur(took))
}

// safeAddr is an address as the text views show it: one the state holds
// may have been written by anyone.
func safeAddr(addr string) string { return text.SafeLine(addr) }

func (v *progressView) elapsed(addr string) string {
	s, ok := v.starts[addr]
	if !ok {
		return ""
	}
	return roundDur(v.now().Sub(s)).String()
}

func roundDur(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
