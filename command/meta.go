package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
)

// meta is what every command shares.
type meta struct {
	streams Streams
	// signals, when set, replaces os/signal (tests send their own).
	signals chan os.Signal
}

func (m *meta) col() colorizer { return colorizer(m.streams.color()) }

// logger logs to stderr at EGGO_LOG's level (off by default), through
// text.Safe: a log line may quote what a node printed, and the logger
// writes no colour of its own.
func (m *meta) logger() hclog.Logger {
	lvl := m.streams.getenv("EGGO_LOG")
	if lvl == "" {
		return hclog.NewNullLogger()
	}
	return hclog.New(&hclog.LoggerOptions{Name: "eggo", Level: hclog.LevelFromString(lvl), Output: text.NewSafeWriter(m.streams.Err)})
}

// errorf reports an error as text on stderr, whatever the format: the
// commands whose errors are never JSON use it.
func (m *meta) errorf(format string, a ...any) {
	m.text().Error(fmt.Sprintf(format, a...))
}

// interrupts returns a context cancelled on the second interrupt and a
// channel closed on the first: stop scheduling, then abandon.
func (m *meta) interrupts() (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := m.signals
	if sigs == nil {
		sigs = make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	}
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case <-sigs:
				n++
				if n == 1 {
					fmt.Fprintln(m.streams.Err, "\nInterrupt received: starting nothing new, waiting for running operations to finish. Press Ctrl-C again to abandon them.")
					close(stop)
				} else {
					fmt.Fprintln(m.streams.Err, "\nSecond interrupt: abandoning running operations. State keeps what finished; run apply again to resume.")
					cancel()
					return
				}
			}
		}
	}()
	return ctx, stop, func() {
		close(done)
		if m.signals == nil {
			signal.Stop(sigs)
		}
		cancel()
	}
}

// ask reads one line of approval.
func (m *meta) ask(prompt string) (string, error) {
	fmt.Fprint(m.streams.Out, prompt)
	var line strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := m.streams.In.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			line.WriteByte(buf[0])
		}
		if err != nil {
			if line.Len() == 0 {
				return "", err
			}
			break
		}
	}
	return strings.TrimSpace(line.String()), nil
}

// testSignals, when set by a test, replaces the process's interrupts.
var testSignals chan os.Signal

// open opens the workspace req names. Only errors are reported, in v: a
// configuration's diagnostics, or what kept the backend from opening. The
// caller shows the configuration's warnings (Loaded().Diags) where it
// always has; it closes the workspace.
func (m *meta) open(req engine.Request, v View) (*engine.Workspace, bool) {
	ws, err := engine.Open(context.Background(), req)
	var cfgErr *engine.ConfigError
	switch {
	case errors.As(err, &cfgErr):
		v.Diagnostics(cfgErr.Loaded.Diags, cfgErr.Loaded)
		return nil, false
	case err != nil:
		v.Error(err.Error())
		return nil, false
	}
	return ws, true
}
