package command

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// progressView prints apply progress for people: one line per event, each
// with the resource's elapsed time, so a slow copy shows it is alive.
type progressView struct {
	mu     sync.Mutex
	out    io.Writer
	col    colorizer
	starts map[string]time.Time
	now    func() time.Time
}

func newProgressView(out io.Writer, col colorizer) *progressView {
	return &progressView{out: out, col: col, starts: map[string]time.Time{}, now: time.Now}
}

var verbs = map[resources.Action][2]string{
	resources.Create:  {"Creating...", "Creation complete"},
	resources.Update:  {"Modifying...", "Modifications complete"},
	resources.Delete:  {"Destroying...", "Destruction complete"},
	resources.Replace: {"Replacing...", "Replacement complete"},
}

func (v *progressView) Refreshing(addr string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fmt.Fprintf(v.out, "%s: Refreshing state...\n", addr)
}

func (v *progressView) PreApply(c *resources.Change) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.starts[c.Addr] = v.now()
	fmt.Fprintf(v.out, "%s: %s\n", v.col.c(bold, c.Addr), verbs[c.Action][0])
}

func (v *progressView) Progress(addr, msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fmt.Fprintf(v.out, "%s: %s… %s\n", addr, msg, v.elapsed(addr))
}

func (v *progressView) PostApply(c *resources.Change, err error, took time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err != nil {
		fmt.Fprintf(v.out, "%s: %s after %s\n", v.col.c(red, c.Addr), v.col.c(red, "failed"), roundDur(took))
		return
	}
	fmt.Fprintf(v.out, "%s: %s after %s\n", v.col.c(bold, c.Addr), verbs[c.Action][1], roundDur(took))
}

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
